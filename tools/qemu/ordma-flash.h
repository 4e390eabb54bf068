/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the device's flash and the firmware it runs
 * (ordma-flash.c).  With flash=FILE the firmware is not the one linked
 * into the model but the image in the flash's active slot, verified
 * against the public key of fw-pubkey=FILE before any of its code is
 * loaded; without flash= the model runs ordma_fw_builtin.
 */
#ifndef HW_NET_ORDMA_FLASH_H
#define HW_NET_ORDMA_FLASH_H

#include "qom/object.h"

#include "ordma_fw.h"
#include "image/ordma_image.h"

/* What the model knows of a slot's image */
typedef struct OrdmaFlashSlot {
    uint32_t state;                 /* enum ordma_flash_slot_state */
    struct ordma_image_info info;   /* of a VALID slot */
} OrdmaFlashSlot;

/*
 * Under the device's fw_lock once realized: the flash HAL calls come
 * from the firmware, the switch at reset from ordma_fw_leave().
 */
typedef struct OrdmaFlash {
    int fd;                         /* the flash file, or -1 */
    uint8_t pubkey[ORDMA_IMAGE_PUBKEY_SIZE];
    struct ordma_flash_state st;    /* its header, as last written */
    void *handle;                   /* dlopen() of the running payload */
    const struct ordma_fw_image *img;   /* the firmware's entries */
    int running_slot;               /* -1: the built-in firmware */
    struct ordma_image_info running;    /* header of the running image */
    char *boot_log;                 /* why slots were refused at boot */
    OrdmaFlashSlot slot[ORDMA_FLASH_SLOTS];
    uint8_t *stage;                 /* the image FLASH_WRITE hands over */
    uint32_t stage_len;
    uint32_t activation;            /* enum ordma_flash_activation */
    bool activate_requested;        /* FW_ACTIVATE: switch at reset */
} OrdmaFlash;

struct OrdmaState;

void ordma_flash_class_init(ObjectClass *klass);
/*
 * Before the firmware is created: picks the entries it is created with
 * (s->flash.img), from the flash if there is one.  An active slot whose
 * image does not verify, load or pass its self-test is given up for the
 * other slot, which becomes the active one.
 */
bool ordma_flash_open(struct OrdmaState *s, Error **errp);
/* Once the firmware is destroyed: unloads its code */
void ordma_flash_close(struct OrdmaState *s);
/* The HAL's flash operations, if the device has a flash */
void ordma_flash_hal_ops(struct OrdmaState *s, struct ordma_hal_ops *hal);
/*
 * A reset after FW_ACTIVATE: the firmware that runs is destroyed and
 * the pending slot's booted in its place, or the slot that ran before
 * if it does not boot.  From ordma_fw_leave(), with fw_lock held and no
 * firmware call in progress.
 */
void ordma_flash_switch(struct OrdmaState *s);

#endif
