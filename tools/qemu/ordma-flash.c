/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the device's flash and the firmware it runs.
 *
 * flash=FILE is the device's non-volatile store in the format of
 * include/linux/ordma/ordma_image.h: a header block naming the active
 * slot, then two slots of one firmware image each.  At power-on (realize)
 * the model boots the active slot: it reads the image into its own
 * memory, verifies it there (structure, signing key, Ed25519 signature
 * over header and payload with the key of fw-pubkey=FILE, board, entry
 * table and interface versions), and only then copies the payload into a
 * sealed memfd and dlopen()s it: no byte it did not verify is loaded, and
 * no one can change the bytes between the check and the load.  The
 * payload's entry table must carry the version its header announced, and
 * its self-test must pass.  An active slot that fails any of this is
 * given up for the other slot, which becomes the active one in the flash
 * header (the rollback a firmware-test engineer relies on); the reasons
 * are kept in the read-only property fw-boot-log.  With no bootable slot
 * realize fails, as it does for a key or flash header that does not
 * pass its checks (Documentation/ordma/hw-reference.rst, "Power-on
 * from the flash").
 *
 * Without flash= the model runs the firmware linked into it.
 */

#include "qemu/osdep.h"
#include "qemu/error-report.h"
#include "qapi/error.h"
#include "qapi/visitor.h"

#include <dlfcn.h>
#include <sys/mman.h>

#include "ordma-pci.h"
#include "replay/ordma_rec.h"

/* The public key file: 64 hex digits, optional trailing white space */
static bool ordma_flash_read_pubkey(const char *path, uint8_t *key,
                                    Error **errp)
{
    g_autofree char *text = NULL;
    gsize len;
    unsigned int i;

    if (!g_file_get_contents(path, &text, &len, NULL)) {
        error_setg(errp, "fw-pubkey=%s: cannot read the file", path);
        return false;
    }
    g_strchomp(text);
    if (strlen(text) != 2 * ORDMA_IMAGE_PUBKEY_SIZE) {
        error_setg(errp, "fw-pubkey=%s: not %u hex digits", path,
                   2 * ORDMA_IMAGE_PUBKEY_SIZE);
        return false;
    }
    for (i = 0; i < ORDMA_IMAGE_PUBKEY_SIZE; i++) {
        int hi = g_ascii_xdigit_value(text[2 * i]);
        int lo = g_ascii_xdigit_value(text[2 * i + 1]);

        if (hi < 0 || lo < 0) {
            error_setg(errp, "fw-pubkey=%s: not a hex key", path);
            return false;
        }
        key[i] = hi << 4 | lo;
    }
    return true;
}

static void ordma_flash_log(OrdmaFlash *f, const char *fmt, ...)
    G_GNUC_PRINTF(2, 3);

static void ordma_flash_log(OrdmaFlash *f, const char *fmt, ...)
{
    g_autofree char *msg = NULL;
    char *log;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    log = g_strdup_printf("%s%s%s", f->boot_log ? f->boot_log : "",
                          f->boot_log ? "; " : "", msg);
    g_free(f->boot_log);
    f->boot_log = log;
}

/*
 * The verified payload, in a memfd sealed against every change, loaded
 * from there.  Returns the dlopen() handle or NULL (reason in *why).
 */
static void *ordma_flash_dlopen(const uint8_t *payload, size_t len,
                                char **why)
{
    g_autofree char *path = NULL;
    size_t done = 0;
    void *handle;
    int fd;

    fd = memfd_create("ordma-fw", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    if (fd < 0) {
        *why = g_strdup_printf("memfd_create: %s", strerror(errno));
        return NULL;
    }
    while (done < len) {
        ssize_t n = write(fd, payload + done, len - done);

        if (n < 0 && errno == EINTR) {
            continue;
        }
        if (n <= 0) {
            *why = g_strdup_printf("memfd write: %s",
                                   n < 0 ? strerror(errno) : "short");
            close(fd);
            return NULL;
        }
        done += n;
    }
    if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_WRITE |
              F_SEAL_SEAL) < 0) {
        *why = g_strdup_printf("memfd seal: %s", strerror(errno));
        close(fd);
        return NULL;
    }
    path = g_strdup_printf("/proc/self/fd/%d", fd);
    handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    close(fd);
    if (!handle) {
        *why = g_strdup_printf("dlopen: %s", dlerror());
    }
    return handle;
}

/* The largest image a slot takes */
static uint64_t ordma_flash_max_image(const OrdmaFlash *f)
{
    return MIN((uint64_t)f->st.slot_size,
               ORDMA_IMAGE_SIZE((uint64_t)ORDMA_IMAGE_MAX_PAYLOAD));
}

/*
 * Read a slot's image into memory of the model's own and verify it
 * there; the slot's state follows.  Returns the image (g_free() it) or
 * NULL, with the reason logged.
 */
static uint8_t *ordma_flash_read_slot(OrdmaFlash *f, unsigned int slot,
                                      struct ordma_image_info *info)
{
    uint64_t size = f->st.image_size[slot];
    uint8_t *buf;
    ssize_t n;
    int err;

    f->slot[slot].state = ORDMA_FLASH_SLOT_EMPTY;
    if (!size) {
        ordma_flash_log(f, "slot %u: empty", slot);
        return NULL;
    }
    f->slot[slot].state = ORDMA_FLASH_SLOT_INVALID;
    /* the header's size alone is no reason to take gigabytes of memory */
    if (size > ordma_flash_max_image(f)) {
        ordma_flash_log(f, "slot %u: %s", slot,
                        ordma_image_strerror(ORDMA_IMAGE_TOO_LARGE));
        return NULL;
    }
    buf = g_malloc(size);
    n = pread(f->fd, buf, size,
              ORDMA_FLASH_SLOT_OFFSET(f->st.slot_size, slot));
    if (n < 0 || (uint64_t)n != size) {
        ordma_flash_log(f, "slot %u: cannot read %" PRIu64 " bytes", slot,
                        size);
        g_free(buf);
        return NULL;
    }
    err = ordma_image_verify(buf, size, f->pubkey, ORDMA_FW_BOARD_ID, info);
    if (err) {
        ordma_flash_log(f, "slot %u: %s", slot, ordma_image_strerror(err));
        g_free(buf);
        return NULL;
    }
    f->slot[slot].state = ORDMA_FLASH_SLOT_VALID;
    f->slot[slot].info = *info;
    return buf;
}

/* Boot one slot: true with f->handle, f->img and f->running set */
static bool ordma_flash_boot_slot(OrdmaFlash *f, unsigned int slot)
{
    struct ordma_image_info info;
    const struct ordma_fw_image *img;
    g_autofree uint8_t *buf = NULL;
    g_autofree char *why = NULL;
    void *handle;

    buf = ordma_flash_read_slot(f, slot, &info);
    if (!buf) {
        return false;
    }

    handle = ordma_flash_dlopen(buf + info.payload_offset, info.payload_size,
                                &why);
    if (!handle) {
        ordma_flash_log(f, "slot %u: %s", slot, why);
        return false;
    }
    img = dlsym(handle, ORDMA_FW_IMAGE_SYMBOL);
    if (!img) {
        ordma_flash_log(f, "slot %u: no %s in the payload", slot,
                        ORDMA_FW_IMAGE_SYMBOL);
        goto err_close;
    }
    if (img->abi_major != ORDMA_FW_ABI_MAJOR ||
        img->abi_major != info.abi_major ||
        img->abi_minor != info.abi_minor) {
        ordma_flash_log(f, "slot %u: entry table %u.%u, header says %u.%u, "
                        "the device takes %u.x", slot, img->abi_major,
                        img->abi_minor, info.abi_major, info.abi_minor,
                        ORDMA_FW_ABI_MAJOR);
        goto err_close;
    }
    if (img->fw_major != info.fw_major || img->fw_minor != info.fw_minor ||
        img->fw_sub_minor != info.fw_sub_minor ||
        img->fw_build != info.fw_build) {
        ordma_flash_log(f, "slot %u: payload is firmware %u.%u.%u build %u, "
                        "the header says %u.%u.%u build %u", slot,
                        img->fw_major, img->fw_minor, img->fw_sub_minor,
                        img->fw_build, info.fw_major, info.fw_minor,
                        info.fw_sub_minor, info.fw_build);
        goto err_close;
    }
    if (img->self_test() != 0) {
        ordma_flash_log(f, "slot %u: firmware %u.%u.%u failed its self-test",
                        slot, info.fw_major, info.fw_minor, info.fw_sub_minor);
        goto err_close;
    }
    f->handle = handle;
    f->img = img;
    f->running = info;
    f->running_slot = slot;
    return true;

err_close:
    dlclose(handle);
    return false;
}

/* The flash header block, rewritten in place */
static bool ordma_flash_write_header(OrdmaFlash *f)
{
    g_autofree uint8_t *block = g_malloc0(ORDMA_FLASH_BLOCK);

    f->st.generation++;
    ordma_flash_encode(&f->st, block);
    return pwrite(f->fd, block, ORDMA_FLASH_BLOCK, 0) == ORDMA_FLASH_BLOCK &&
           fdatasync(f->fd) == 0;
}

bool ordma_flash_open(OrdmaState *s, Error **errp)
{
    OrdmaFlash *f = &s->flash;
    g_autofree uint8_t *block = NULL;
    unsigned int active;
    struct stat st;
    ssize_t n;
    int err;

    f->running_slot = -1;
    if (!s->flash_path || !*s->flash_path) {
        if (s->fw_pubkey_path && *s->fw_pubkey_path) {
            error_setg(errp, "fw-pubkey=%s without flash=: the key checks "
                       "the images of a flash", s->fw_pubkey_path);
            return false;
        }
        f->img = &ordma_fw_builtin;
        return true;
    }
    if (!s->fw_pubkey_path || !*s->fw_pubkey_path) {
        error_setg(errp, "flash=%s needs fw-pubkey=FILE, the key its "
                   "images are signed with", s->flash_path);
        return false;
    }
    if (!ordma_flash_read_pubkey(s->fw_pubkey_path, f->pubkey, errp)) {
        return false;
    }
    f->fd = qemu_open(s->flash_path, O_RDWR, errp);
    if (f->fd < 0) {
        return false;
    }
    block = g_malloc0(ORDMA_FLASH_BLOCK);
    n = fstat(f->fd, &st) < 0 ? -1 :
        pread(f->fd, block, ORDMA_FLASH_BLOCK, 0);
    if (n < 0) {
        error_setg_errno(errp, errno, "flash=%s: cannot read its header",
                         s->flash_path);
        goto err_close;
    }
    /* a shorter file is a truncated flash */
    err = ordma_flash_parse(block, n, st.st_size, &f->st);
    if (err) {
        error_setg(errp, "flash=%s: %s", s->flash_path,
                   ordma_image_strerror(err));
        goto err_close;
    }

    active = f->st.active;
    /* what QUERY_FLASH reports of the slot that does not boot */
    g_free(ordma_flash_read_slot(f, !active, &(struct ordma_image_info){}));
    g_free(f->boot_log);
    f->boot_log = NULL;
    if (!ordma_flash_boot_slot(f, active)) {
        if (!ordma_flash_boot_slot(f, !active)) {
            error_setg(errp, "flash=%s: no bootable firmware: %s",
                       s->flash_path, f->boot_log);
            goto err_close;
        }
        /* Rolled back: the slot that booted is the active one now. */
        warn_report("%s: %s; booted slot %u", s->ident, f->boot_log,
                    !active);
        f->st.active = !active;
        if (f->st.pending == f->st.active) {
            f->st.pending = ORDMA_FLASH_NO_SLOT;
        }
        if (!ordma_flash_write_header(f)) {
            warn_report("%s: flash=%s: the new active slot could not be "
                        "written", s->ident, s->flash_path);
        }
    }
    return true;

err_close:
    close(f->fd);
    f->fd = -1;
    g_free(f->boot_log);
    f->boot_log = NULL;
    return false;
}

/* ------------------------------------------------------------------ */
/* Firmware update: the HAL's flash operations (under fw_lock)          */
/* ------------------------------------------------------------------ */

static int ordma_flash_hal_write(void *ctx, uint32_t off, const void *data,
                                 uint32_t len)
{
    OrdmaFlash *f = &((OrdmaState *)ctx)->flash;

    if ((uint64_t)off + len > ordma_flash_max_image(f)) {
        return -1;
    }
    if (!off) {
        f->stage_len = 0;
    }
    /* the firmware writes in order; the model holds it to that too */
    if (off != f->stage_len) {
        return -1;
    }
    f->stage = g_realloc(f->stage, (size_t)off + len);
    memcpy(f->stage + off, data, len);
    f->stage_len = off + len;
    return 0;
}

/*
 * The image is checked as at power-on, then written to the slot that
 * does not run, which becomes the pending one.  Returns 0 or an enum
 * ordma_image_error.
 */
static int ordma_flash_hal_commit(void *ctx, uint32_t len)
{
    OrdmaState *s = ctx;
    OrdmaFlash *f = &s->flash;
    unsigned int slot = f->running_slot == 0 ? 1 : 0;
    g_autofree uint8_t *image = f->stage;
    struct ordma_image_info info;
    uint32_t staged = f->stage_len;
    ssize_t n;
    int err;

    f->stage = NULL;
    f->stage_len = 0;
    if (len != staged) {
        return ORDMA_IMAGE_TRUNCATED;
    }
    err = ordma_image_verify(image, len, f->pubkey, ORDMA_FW_BOARD_ID,
                             &info);
    if (err) {
        warn_report("%s: flash: image refused: %s", s->ident,
                    ordma_image_strerror(err));
        return err;
    }
    n = pwrite(f->fd, image, len,
               ORDMA_FLASH_SLOT_OFFSET(f->st.slot_size, slot));
    if (n < 0 || (uint32_t)n != len || fdatasync(f->fd)) {
        /* the slot's old image is gone too */
        f->st.image_size[slot] = 0;
        f->slot[slot].state = ORDMA_FLASH_SLOT_EMPTY;
        if (f->st.pending == slot) {
            f->st.pending = ORDMA_FLASH_NO_SLOT;
        }
        ordma_flash_write_header(f);
        error_report("%s: flash: cannot write slot %u", s->ident, slot);
        return ORDMA_IMAGE_NO_MEMORY;
    }
    f->st.image_size[slot] = len;
    f->st.pending = slot;
    f->slot[slot].state = ORDMA_FLASH_SLOT_VALID;
    f->slot[slot].info = info;
    if (!ordma_flash_write_header(f)) {
        error_report("%s: flash: cannot write its header", s->ident);
    }
    return 0;
}

static void ordma_flash_hal_query(void *ctx, struct ordma_fw_flash_info *fi)
{
    OrdmaFlash *f = &((OrdmaState *)ctx)->flash;
    unsigned int i;

    memset(fi, 0, sizeof(*fi));
    fi->running = f->running_slot < 0 ? ORDMA_FLASH_NO_SLOT :
                  (uint32_t)f->running_slot;
    fi->active = f->st.active;
    fi->pending = f->st.pending;
    fi->activation = f->activation;
    for (i = 0; i < ORDMA_FLASH_SLOTS; i++) {
        fi->slot[i].state = f->slot[i].state;
        if (f->slot[i].state != ORDMA_FLASH_SLOT_VALID) {
            continue;
        }
        fi->slot[i].fw_major = f->slot[i].info.fw_major;
        fi->slot[i].fw_minor = f->slot[i].info.fw_minor;
        fi->slot[i].fw_sub_minor = f->slot[i].info.fw_sub_minor;
        fi->slot[i].fw_build = f->slot[i].info.fw_build;
    }
}

static int ordma_flash_hal_activate(void *ctx)
{
    OrdmaFlash *f = &((OrdmaState *)ctx)->flash;

    if (f->st.pending == ORDMA_FLASH_NO_SLOT) {
        return -1;
    }
    f->activate_requested = true;
    f->activation = ORDMA_FLASH_ACTIVATION_REQUESTED;
    return 0;
}

void ordma_flash_hal_ops(OrdmaState *s, struct ordma_hal_ops *hal)
{
    if (s->flash.fd < 0) {
        return;
    }
    hal->flash_write = ordma_flash_hal_write;
    hal->flash_commit = ordma_flash_hal_commit;
    hal->flash_query = ordma_flash_hal_query;
    hal->flash_activate = ordma_flash_hal_activate;
}

void ordma_flash_switch(OrdmaState *s)
{
    OrdmaFlash *f = &s->flash;
    int from = f->running_slot;
    unsigned int to = f->st.pending;

    f->activate_requested = false;
    if (to == ORDMA_FLASH_NO_SLOT || from < 0) {
        return;
    }
    /*
     * The firmware that runs goes, and its code with it: the loader
     * knows an object by the name it was opened by, and a new payload's
     * /proc/self/fd/N may be the old one's name.
     */
    ordma_rec_destroy(s->rec);
    s->rec = NULL;
    dlclose(f->handle);
    f->handle = NULL;
    f->img = NULL;
    g_free(f->boot_log);
    f->boot_log = NULL;
    f->st.pending = ORDMA_FLASH_NO_SLOT;
    if (ordma_flash_boot_slot(f, to)) {
        f->st.active = to;
        f->activation = ORDMA_FLASH_ACTIVATION_DONE;
        info_report("%s: firmware %u.%u.%u (slot %u) runs", s->ident,
                    f->running.fw_major, f->running.fw_minor,
                    f->running.fw_sub_minor, to);
    } else {
        f->activation = ORDMA_FLASH_ACTIVATION_ROLLED_BACK;
        warn_report("%s: %s; slot %d runs again", s->ident, f->boot_log,
                    from);
        if (!ordma_flash_boot_slot(f, from)) {
            /* the image that ran a moment ago: should never happen */
            error_report("%s: %s; the built-in firmware runs", s->ident,
                         f->boot_log);
            f->img = &ordma_fw_builtin;
            f->running_slot = -1;
        }
    }
    if (!ordma_flash_write_header(f)) {
        warn_report("%s: the flash header could not be written", s->ident);
    }
    /* a new device behind the same HAL; a recording ends here */
    s->rec = ordma_rec_create_image(f->img, &s->hal, s, &s->fw_cfg, NULL);
    if (!s->rec) {
        error_report("%s: the new firmware refused the configuration; "
                     "the built-in firmware runs", s->ident);
        s->rec = ordma_rec_create_image(&ordma_fw_builtin, &s->hal, s,
                                        &s->fw_cfg, NULL);
        assert(s->rec);
    }
}

void ordma_flash_close(OrdmaState *s)
{
    OrdmaFlash *f = &s->flash;

    if (f->handle) {
        dlclose(f->handle);
        f->handle = NULL;
    }
    f->img = NULL;
    if (f->fd >= 0) {
        close(f->fd);
        f->fd = -1;
    }
    g_free(f->boot_log);
    f->boot_log = NULL;
    g_free(f->stage);
    f->stage = NULL;
}

/*
 * What runs, and why, copied under fw_lock: an activation replaces the
 * firmware (and unloads the old one's code) and its boot log.
 */
static void ordma_flash_snapshot(OrdmaState *s, int32_t *slot,
                                 char **version, char **log)
{
    OrdmaFlash *f = &s->flash;
    bool locked = DEVICE(s)->realized && ordma_fw_enter(s, "flash query");

    *slot = f->running_slot;
    if (f->running_slot >= 0) {
        *version = g_strdup_printf("%u.%u.%u", f->running.fw_major,
                                   f->running.fw_minor,
                                   f->running.fw_sub_minor);
    } else {
        *version = g_strdup_printf("%u.%u.%u", ordma_fw_builtin.fw_major,
                                   ordma_fw_builtin.fw_minor,
                                   ordma_fw_builtin.fw_sub_minor);
    }
    *log = g_strdup(f->boot_log ?: "");
    if (locked) {
        ordma_fw_leave(s);
    }
}

static void ordma_flash_get_version(Object *obj, Visitor *v,
                                    const char *name, void *opaque,
                                    Error **errp)
{
    g_autofree char *version = NULL, *log = NULL;
    int32_t slot;

    ordma_flash_snapshot(ORDMA_PCI(obj), &slot, &version, &log);
    visit_type_str(v, name, &version, errp);
}

static void ordma_flash_get_slot(Object *obj, Visitor *v, const char *name,
                                 void *opaque, Error **errp)
{
    g_autofree char *version = NULL, *log = NULL;
    int32_t slot;

    ordma_flash_snapshot(ORDMA_PCI(obj), &slot, &version, &log);
    visit_type_int32(v, name, &slot, errp);
}

static void ordma_flash_get_boot_log(Object *obj, Visitor *v,
                                     const char *name, void *opaque,
                                     Error **errp)
{
    g_autofree char *version = NULL, *log = NULL;
    int32_t slot;

    ordma_flash_snapshot(ORDMA_PCI(obj), &slot, &version, &log);
    visit_type_str(v, name, &log, errp);
}

void ordma_flash_class_init(ObjectClass *klass)
{
    object_class_property_add(klass, "fw-version", "str",
                              ordma_flash_get_version, NULL, NULL, NULL);
    object_class_property_set_description(klass, "fw-version",
        "version of the firmware running (read only)");
    object_class_property_add(klass, "fw-slot", "int32",
                              ordma_flash_get_slot, NULL, NULL, NULL);
    object_class_property_set_description(klass, "fw-slot",
        "flash slot of the firmware running, -1 for the built-in one "
        "(read only)");
    object_class_property_add(klass, "fw-boot-log", "str",
                              ordma_flash_get_boot_log, NULL, NULL, NULL);
    object_class_property_set_description(klass, "fw-boot-log",
        "why flash slots were refused at power-on (read only)");
}
