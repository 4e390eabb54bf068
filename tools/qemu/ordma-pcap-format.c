/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: pcapng blocks (see ordma-pcap-format.h).  The
 * reader takes files from anywhere: every length is checked against
 * what is left of the block and of the file before it is used.
 */

/*
 * QEMU compiles every file of the device with its osdep.h first; the
 * host unit test builds this one alone, with plain C11 and libc.
 */
#ifdef ORDMA_WIRE_FRAME_HOST
#include <stdio.h>
#include <string.h>
#else
#include "qemu/osdep.h"
#endif

#include "ordma-pcap-format.h"

#define ORDMA_PCAP_OPT_END      0
#define ORDMA_PCAP_OPT_COMMENT  1
#define ORDMA_PCAP_OPT_SHB_APPL 4
#define ORDMA_PCAP_OPT_IF_NAME  2
#define ORDMA_PCAP_OPT_TSRESOL  9
#define ORDMA_PCAP_OPT_EPB_FLAGS 2
/* a block's type and length before its body, the length again after */
#define ORDMA_PCAP_BLOCK_MIN    12
/* option strings are cut here (if_name, shb_userappl, opt_comment) */
#define ORDMA_PCAP_STR_MAX      256

static size_t ordma_pcap_pad4(size_t n)
{
    return (n + 3) & ~(size_t)3;
}

static void ordma_pcap_put16(uint8_t *p, uint16_t v)
{
    p[0] = v & 0xff;
    p[1] = v >> 8;
}

static void ordma_pcap_put32(uint8_t *p, uint32_t v)
{
    p[0] = v & 0xff;
    p[1] = (v >> 8) & 0xff;
    p[2] = (v >> 16) & 0xff;
    p[3] = v >> 24;
}

static size_t ordma_pcap_strlen(const char *s)
{
    size_t n = 0;

    while (s && n < ORDMA_PCAP_STR_MAX && s[n]) {
        n++;
    }
    return n;
}

/* Size of an option with a value of len bytes */
static size_t ordma_pcap_opt_size(size_t len)
{
    return 4 + ordma_pcap_pad4(len);
}

/* Writes an option at p; returns the bytes written */
static size_t ordma_pcap_opt(uint8_t *p, uint16_t code, const void *val,
                             size_t len)
{
    size_t size = ordma_pcap_opt_size(len);

    ordma_pcap_put16(p, code);
    ordma_pcap_put16(p + 2, (uint16_t)len);
    memset(p + 4, 0, size - 4);
    if (len) {
        memcpy(p + 4, val, len);
    }
    return size;
}

/* Type and length at the start of a block of size bytes, length at its end */
static void ordma_pcap_frame_block(uint8_t *out, uint32_t type, size_t size)
{
    ordma_pcap_put32(out, type);
    ordma_pcap_put32(out + 4, (uint32_t)size);
    ordma_pcap_put32(out + size - 4, (uint32_t)size);
}

/* Appends ", " and what to tmp (ORDMA_PCAP_COMMENT_MAX) at *n */
static void ordma_pcap_mark(char *tmp, size_t *n, const char *what,
                            uint32_t val)
{
    int w = snprintf(tmp + *n, ORDMA_PCAP_COMMENT_MAX - *n, ", %s", what);

    *n += (size_t)w;
    if (val) {
        w = snprintf(tmp + *n, ORDMA_PCAP_COMMENT_MAX - *n, " %lu us",
                     (unsigned long)val);
        *n += (size_t)w;
    }
}

size_t ordma_pcap_comment(const OrdmaPcapMarks *m, char *buf, size_t room)
{
    /* the longest: 6 + 25 + 5 + 9 + 19 + 20 characters with separators */
    char tmp[ORDMA_PCAP_COMMENT_MAX];
    size_t n = 0;

    if (!room) {
        return 0;
    }
    buf[0] = '\0';
    if (!m) {
        return 0;
    }
    if (m->loss) {
        ordma_pcap_mark(tmp, &n, "loss", 0);
    }
    if (m->corrupt) {
        /* bit 0 is a bit too: always print the number */
        ordma_pcap_mark(tmp, &n, "corrupt bit", 0);
        n += (size_t)snprintf(tmp + n, sizeof(tmp) - n, " %lu",
                              (unsigned long)m->corrupt_bit);
    }
    if (m->dup) {
        ordma_pcap_mark(tmp, &n, "dup", 0);
    }
    if (m->reorder) {
        ordma_pcap_mark(tmp, &n, "reorder", 0);
    }
    if (m->late_us) {
        ordma_pcap_mark(tmp, &n, "late", m->late_us);
    }
    if (m->delay_us) {
        ordma_pcap_mark(tmp, &n, "delay", m->delay_us);
    }
    if (n < 2) {
        return 0;
    }
    /* without the leading ", " */
    n -= 2;
    if (n >= room) {
        n = room - 1;
    }
    memcpy(buf, tmp + 2, n);
    buf[n] = '\0';
    return n;
}

size_t ordma_pcap_shb(uint8_t *out, size_t room, const char *appl)
{
    size_t alen = ordma_pcap_strlen(appl);
    size_t size = ORDMA_PCAP_BLOCK_MIN + 16 +
                  (alen ? ordma_pcap_opt_size(alen) : 0) +
                  ordma_pcap_opt_size(0);
    uint8_t *p = out + 8;

    if (size > room) {
        return 0;
    }
    ordma_pcap_put32(p, ORDMA_PCAP_BYTE_ORDER);
    ordma_pcap_put16(p + 4, 1);             /* major version */
    ordma_pcap_put16(p + 6, 0);             /* minor version */
    memset(p + 8, 0xff, 8);                 /* section length: unknown */
    p += 16;
    if (alen) {
        p += ordma_pcap_opt(p, ORDMA_PCAP_OPT_SHB_APPL, appl, alen);
    }
    ordma_pcap_opt(p, ORDMA_PCAP_OPT_END, NULL, 0);
    ordma_pcap_frame_block(out, ORDMA_PCAP_BT_SHB, size);
    return size;
}

size_t ordma_pcap_idb(uint8_t *out, size_t room, const char *name,
                      uint32_t snaplen)
{
    return ordma_pcap_idb_link(out, room, ORDMA_PCAP_LINK_ETHERNET, name,
                               snaplen);
}

size_t ordma_pcap_idb_link(uint8_t *out, size_t room, uint16_t linktype,
                           const char *name, uint32_t snaplen)
{
    static const uint8_t nanoseconds = 9;
    size_t nlen = ordma_pcap_strlen(name);
    size_t size = ORDMA_PCAP_BLOCK_MIN + 8 +
                  (nlen ? ordma_pcap_opt_size(nlen) : 0) +
                  ordma_pcap_opt_size(1) + ordma_pcap_opt_size(0);
    uint8_t *p = out + 8;

    if (size > room) {
        return 0;
    }
    ordma_pcap_put16(p, linktype);
    ordma_pcap_put16(p + 2, 0);
    ordma_pcap_put32(p + 4, snaplen);
    p += 8;
    if (nlen) {
        p += ordma_pcap_opt(p, ORDMA_PCAP_OPT_IF_NAME, name, nlen);
    }
    p += ordma_pcap_opt(p, ORDMA_PCAP_OPT_TSRESOL, &nanoseconds, 1);
    ordma_pcap_opt(p, ORDMA_PCAP_OPT_END, NULL, 0);
    ordma_pcap_frame_block(out, ORDMA_PCAP_BT_IDB, size);
    return size;
}

static size_t ordma_pcap_caplen(size_t len, uint32_t snaplen)
{
    return snaplen && len > snaplen ? snaplen : len;
}

size_t ordma_pcap_epb_size(size_t len, uint32_t snaplen, const char *comment)
{
    size_t clen = ordma_pcap_strlen(comment);

    return ORDMA_PCAP_BLOCK_MIN + 20 +
           ordma_pcap_pad4(ordma_pcap_caplen(len, snaplen)) +
           (clen ? ordma_pcap_opt_size(clen) : 0) + ordma_pcap_opt_size(4) +
           ordma_pcap_opt_size(0);
}

size_t ordma_pcap_epb(uint8_t *out, size_t room, uint32_t ifid,
                      uint64_t ts_ns, unsigned int dir, const void *frame,
                      size_t len, uint32_t snaplen, const char *comment)
{
    size_t caplen = ordma_pcap_caplen(len, snaplen);
    size_t clen = ordma_pcap_strlen(comment);
    size_t size = ordma_pcap_epb_size(len, snaplen, comment);
    uint8_t flags[4];
    uint8_t *p = out + 8;

    if (len > UINT32_MAX || size > room) {
        return 0;
    }
    ordma_pcap_put32(p, ifid);
    ordma_pcap_put32(p + 4, (uint32_t)(ts_ns >> 32));
    ordma_pcap_put32(p + 8, (uint32_t)ts_ns);
    ordma_pcap_put32(p + 12, (uint32_t)caplen);
    ordma_pcap_put32(p + 16, (uint32_t)len);
    p += 20;
    if (caplen) {
        memcpy(p, frame, caplen);
    }
    memset(p + caplen, 0, ordma_pcap_pad4(caplen) - caplen);
    p += ordma_pcap_pad4(caplen);
    if (clen) {
        p += ordma_pcap_opt(p, ORDMA_PCAP_OPT_COMMENT, comment, clen);
    }
    ordma_pcap_put32(flags, dir & 3);
    p += ordma_pcap_opt(p, ORDMA_PCAP_OPT_EPB_FLAGS, flags, 4);
    ordma_pcap_opt(p, ORDMA_PCAP_OPT_END, NULL, 0);
    ordma_pcap_frame_block(out, ORDMA_PCAP_BT_EPB, size);
    return size;
}

/* ------------------------------------------------------------------ */
/* Reading                                                             */
/* ------------------------------------------------------------------ */

void ordma_pcap_reader_init(OrdmaPcapReader *r, const void *buf, size_t len)
{
    memset(r, 0, sizeof(*r));
    r->buf = buf;
    r->len = len;
}

static uint16_t ordma_pcap_get16(const OrdmaPcapReader *r, const uint8_t *p)
{
    return r->swap ? (uint16_t)(p[0] << 8 | p[1]) :
                     (uint16_t)(p[1] << 8 | p[0]);
}

static uint32_t ordma_pcap_get32(const OrdmaPcapReader *r, const uint8_t *p)
{
    if (r->swap) {
        return (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 |
               (uint32_t)p[2] << 8 | p[3];
    }
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
           (uint32_t)p[1] << 8 | p[0];
}

static int ordma_pcap_bad(OrdmaPcapReader *r, const char *why)
{
    r->error = why;
    return -1;
}

/* The options in [p, end) of a block of type */
static int ordma_pcap_options(OrdmaPcapReader *r, OrdmaPcapBlock *b,
                              const uint8_t *p, const uint8_t *end)
{
    while ((size_t)(end - p) >= 4) {
        uint16_t code = ordma_pcap_get16(r, p);
        size_t len = ordma_pcap_get16(r, p + 2);
        const uint8_t *val = p + 4;

        if (code == ORDMA_PCAP_OPT_END) {
            return 0;
        }
        if (ordma_pcap_pad4(len) > (size_t)(end - val)) {
            return ordma_pcap_bad(r, "an option runs past its block");
        }
        if (code == ORDMA_PCAP_OPT_COMMENT && !b->comment) {
            b->comment = (const char *)val;
            b->comment_len = len;
        } else if (b->type == ORDMA_PCAP_BT_IDB &&
                   code == ORDMA_PCAP_OPT_IF_NAME) {
            b->name = (const char *)val;
            b->name_len = len;
        } else if (b->type == ORDMA_PCAP_BT_IDB &&
                   code == ORDMA_PCAP_OPT_TSRESOL && len >= 1) {
            b->tsresol = val[0];
        } else if (b->type == ORDMA_PCAP_BT_EPB &&
                   code == ORDMA_PCAP_OPT_EPB_FLAGS && len == 4) {
            b->has_flags = true;
            b->flags = ordma_pcap_get32(r, val);
        }
        p = val + ordma_pcap_pad4(len);
    }
    if (p != end) {
        return ordma_pcap_bad(r, "options end inside a word");
    }
    return 0;
}

int ordma_pcap_read(OrdmaPcapReader *r, OrdmaPcapBlock *b)
{
    const uint8_t *p, *body, *end;
    size_t left = r->len - r->off;
    uint32_t type, size;

    memset(b, 0, sizeof(*b));
    if (!left) {
        return r->in_section ? 0 : ordma_pcap_bad(r, "no section header");
    }
    if (left < ORDMA_PCAP_BLOCK_MIN) {
        return ordma_pcap_bad(r, "the file ends inside a block header");
    }
    p = r->buf + r->off;
    /* the section header says the byte order of everything up to the next */
    if (p[0] == 0x0a && p[1] == 0x0d && p[2] == 0x0d && p[3] == 0x0a) {
        if (p[8] == 0x4d && p[9] == 0x3c && p[10] == 0x2b && p[11] == 0x1a) {
            r->swap = false;
        } else if (p[8] == 0x1a && p[9] == 0x2b && p[10] == 0x3c &&
                   p[11] == 0x4d) {
            r->swap = true;
        } else {
            return ordma_pcap_bad(r, "section header: bad byte-order magic");
        }
        r->in_section = true;
    } else if (!r->in_section) {
        return ordma_pcap_bad(r, "no section header");
    }
    type = ordma_pcap_get32(r, p);
    size = ordma_pcap_get32(r, p + 4);
    if (size < ORDMA_PCAP_BLOCK_MIN || size % 4 || size > left) {
        return ordma_pcap_bad(r, "a block length is not valid");
    }
    if (ordma_pcap_get32(r, p + size - 4) != size) {
        return ordma_pcap_bad(r, "a block's two lengths differ");
    }
    b->type = type;
    body = p + 8;
    end = p + size - 4;
    switch (type) {
    case ORDMA_PCAP_BT_SHB:
        if (end - body < 16) {
            return ordma_pcap_bad(r, "section header too short");
        }
        if (ordma_pcap_get16(r, body + 4) != 1) {
            return ordma_pcap_bad(r, "section header: not version 1");
        }
        if (ordma_pcap_options(r, b, body + 16, end)) {
            return -1;
        }
        break;
    case ORDMA_PCAP_BT_IDB:
        if (end - body < 8) {
            return ordma_pcap_bad(r, "interface description too short");
        }
        b->linktype = ordma_pcap_get16(r, body);
        b->snaplen = ordma_pcap_get32(r, body + 4);
        b->tsresol = 6;
        if (ordma_pcap_options(r, b, body + 8, end)) {
            return -1;
        }
        break;
    case ORDMA_PCAP_BT_EPB:
        if (end - body < 20) {
            return ordma_pcap_bad(r, "packet block too short");
        }
        b->ifid = ordma_pcap_get32(r, body);
        b->ts = (uint64_t)ordma_pcap_get32(r, body + 4) << 32 |
                ordma_pcap_get32(r, body + 8);
        b->caplen = ordma_pcap_get32(r, body + 12);
        b->origlen = ordma_pcap_get32(r, body + 16);
        b->data = body + 20;
        if (b->caplen > b->origlen ||
            ordma_pcap_pad4(b->caplen) > (size_t)(end - b->data)) {
            return ordma_pcap_bad(r, "packet block: bad captured length");
        }
        if (ordma_pcap_options(r, b, b->data + ordma_pcap_pad4(b->caplen),
                               end)) {
            return -1;
        }
        break;
    default:
        break;                      /* other blocks are skipped */
    }
    r->off += size;
    return 1;
}
