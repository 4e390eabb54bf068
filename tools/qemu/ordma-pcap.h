/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the port's capture (ordma-pcap.c), a pcapng file
 * of every frame the port sends and receives, with what the wire did to
 * each one it sent.
 */
#ifndef HW_NET_ORDMA_PCAP_H
#define HW_NET_ORDMA_PCAP_H

#include "qemu/notify.h"
#include "qemu/queue.h"
#include "qemu/thread.h"
#include "qemu/timer.h"
#include "qom/object.h"

#include "ordma-pcap-format.h"

/*
 * The properties pcap (the file; "" for none) and pcap-snaplen are set
 * on the command line or with qom-set under the BQL.  lock is a leaf
 * (the lock table is in ordma-pci.h): its holder adds one block to the
 * current buffer and waits, if at all, only for the writer thread,
 * which writes full buffers to the file without it.
 */
typedef struct OrdmaPcapBuf {
    QSIMPLEQ_ENTRY(OrdmaPcapBuf) next;
    size_t len;
    unsigned int frames;            /* frames among the blocks */
    uint8_t data[];
} OrdmaPcapBuf;

typedef struct OrdmaPcap {
    QemuMutex lock;                 /* everything below but the settings */
    bool ready;                     /* realized: lock exists */
    bool on;                        /* a file is open (atomic) */
    int fd;
    uint32_t ifid;                  /* the newest interface of the file */
    OrdmaPcapBuf *cur;              /* blocks being gathered */
    QSIMPLEQ_HEAD(, OrdmaPcapBuf) full;     /* for the writer, in order */
    QSIMPLEQ_HEAD(, OrdmaPcapBuf) free;
    bool writing;                   /* the writer holds a buffer */
    bool stop;
    QemuCond work;                  /* to the writer: a buffer, or stop */
    QemuCond done;                  /* from the writer: a buffer is free */
    QemuThread writer;
    uint64_t frames;                /* written to this file (atomic) */
    uint64_t errors;                /* frames the file did not take */
    QEMUTimer *flush_timer;         /* main loop: writes the buffer out */
    Notifier exit_notifier;

    /* settings, under the BQL */
    char *path;
    uint32_t snaplen;               /* 0: whole frames */
} OrdmaPcap;

struct OrdmaState;

void ordma_pcap_class_init(ObjectClass *klass);
void ordma_pcap_instance_init(struct OrdmaState *s);
void ordma_pcap_instance_finalize(struct OrdmaState *s);
bool ordma_pcap_open(struct OrdmaState *s, Error **errp);
void ordma_pcap_close(struct OrdmaState *s);
/* A frame as it leaves the port (marks: what the wire did, or NULL) */
void ordma_pcap_tx(struct OrdmaState *s, const void *frame, size_t len,
                   const OrdmaPcapMarks *marks);
/* A frame as it reaches the port's firmware */
void ordma_pcap_rx(struct OrdmaState *s, const void *frame, size_t len);

#endif
