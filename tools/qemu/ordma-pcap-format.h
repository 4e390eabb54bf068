/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the blocks of a pcapng capture file (the IETF
 * draft "PCAP Next Generation (pcapng) Capture File Format"), written by
 * the port's capture (ordma-pcap.c) and read back by its tests and by
 * the host's ICRC checker (tools/qemu/tests/pcap-icrc.c).  Plain C11 and
 * libc, no QEMU header, so that the host unit test
 * (tools/qemu/tests/test-pcap-format.c) runs it under the sanitizers.
 *
 * A file is one section: a Section Header Block, then an Interface
 * Description Block per capture interface (Ethernet or InfiniBand,
 * timestamps in nanoseconds, the snap length), then an Enhanced Packet
 * Block per
 * frame with its direction (epb_flags) and, for a frame the port's wire
 * impaired, a comment that says how (opt_comment):
 *
 *   loss            the frame never left: the wire dropped it
 *   corrupt bit N   bit N of the frame was flipped (N = 8 * byte + bit,
 *                   bit 0 the least significant, from the frame's first
 *                   byte); its ICRC no longer matches
 *   dup             the extra copy of a duplicated frame
 *   reorder         held back and sent right after the next frame
 *   late N us       held back for reordering, but no frame followed
 *                   within N us: sent alone, in order
 *   delay N us      waited N us in the wire's delay line
 *
 * several of them separated by ", " (e.g. "corrupt bit 1234, dup").
 * Blocks are written little endian; the reader takes either byte order.
 */
#ifndef HW_NET_ORDMA_PCAP_FORMAT_H
#define HW_NET_ORDMA_PCAP_FORMAT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ORDMA_PCAP_BT_SHB       0x0a0d0d0au
#define ORDMA_PCAP_BT_IDB       0x00000001u
#define ORDMA_PCAP_BT_EPB       0x00000006u
#define ORDMA_PCAP_BYTE_ORDER   0x1a2b3c4du
#define ORDMA_PCAP_LINK_ETHERNET 1
/*
 * LINKTYPE_INFINIBAND: each packet an InfiniBand link packet from the
 * first byte of its LRH to the last of its VCRC (the firmware's native
 * InfiniBand wire format, firmware/wire/fw_ib_wire.h)
 */
#define ORDMA_PCAP_LINK_INFINIBAND 247

/* epb_flags bits 0-1: the direction of the frame */
#define ORDMA_PCAP_DIR_IN       1u
#define ORDMA_PCAP_DIR_OUT      2u

/* The longest comment ordma_pcap_comment() writes, its NUL included */
#define ORDMA_PCAP_COMMENT_MAX  96

/* What the port's wire did to one frame as it left (all zero: nothing) */
typedef struct OrdmaPcapMarks {
    bool loss;
    bool corrupt;
    bool dup;
    bool reorder;
    uint32_t corrupt_bit;           /* if corrupt: of the frame, see above */
    uint32_t late_us;               /* 0: not held alone */
    uint32_t delay_us;              /* 0: not through the delay line */
} OrdmaPcapMarks;

/*
 * The comment for marks in buf (room bytes, NUL-terminated, at most
 * ORDMA_PCAP_COMMENT_MAX with the NUL); returns its length, 0 for a
 * frame the wire left alone (or marks NULL).
 */
size_t ordma_pcap_comment(const OrdmaPcapMarks *marks, char *buf,
                          size_t room);

/*
 * Block writers: each writes one whole block to out and returns its
 * length, or 0 (out untouched) when it needs more than room bytes.
 *
 * ordma_pcap_shb: the Section Header Block; appl names the application
 * (shb_userappl), or NULL.
 */
size_t ordma_pcap_shb(uint8_t *out, size_t room, const char *appl);

/*
 * ordma_pcap_idb: an Ethernet interface called name (if_name, or NULL)
 * with nanosecond timestamps (if_tsresol 9) and snaplen (0: no limit).
 */
size_t ordma_pcap_idb(uint8_t *out, size_t room, const char *name,
                      uint32_t snaplen);

/*
 * ordma_pcap_idb_link: the same for an interface of another link type
 * (ORDMA_PCAP_LINK_*, e.g. ORDMA_PCAP_LINK_INFINIBAND).
 */
size_t ordma_pcap_idb_link(uint8_t *out, size_t room, uint16_t linktype,
                           const char *name, uint32_t snaplen);

/* The size of the block ordma_pcap_epb() writes for these arguments */
size_t ordma_pcap_epb_size(size_t len, uint32_t snaplen,
                           const char *comment);

/*
 * ordma_pcap_epb: frame (len bytes) seen on interface ifid at ts_ns
 * nanoseconds since the epoch, in direction dir (ORDMA_PCAP_DIR_*), at
 * most snaplen bytes of it kept (0: all), with comment (NULL or "":
 * none).  Frames longer than UINT32_MAX are refused (0).
 */
size_t ordma_pcap_epb(uint8_t *out, size_t room, uint32_t ifid,
                      uint64_t ts_ns, unsigned int dir, const void *frame,
                      size_t len, uint32_t snaplen, const char *comment);

/* One block as ordma_pcap_read() found it */
typedef struct OrdmaPcapBlock {
    uint32_t type;                  /* ORDMA_PCAP_BT_*, or another */
    /* IDB */
    uint16_t linktype;
    uint32_t snaplen;
    uint8_t tsresol;                /* if_tsresol, 6 when absent */
    /* EPB */
    uint32_t ifid;
    uint64_t ts;                    /* in the interface's units */
    uint32_t caplen;
    uint32_t origlen;
    const uint8_t *data;            /* caplen bytes inside the file */
    bool has_flags;
    uint32_t flags;
    /* IDB and EPB options, pointing inside the file, not NUL-terminated */
    const char *name;               /* if_name */
    size_t name_len;
    const char *comment;            /* the first opt_comment */
    size_t comment_len;
} OrdmaPcapBlock;

typedef struct OrdmaPcapReader {
    const uint8_t *buf;
    size_t len;
    size_t off;
    bool swap;                      /* the section is big endian */
    bool in_section;
    const char *error;              /* why the last read failed */
} OrdmaPcapReader;

void ordma_pcap_reader_init(OrdmaPcapReader *r, const void *buf,
                            size_t len);

/*
 * The next block of the file into *b: 1, or 0 at the end of the file,
 * or -1 (r->error says why) for a file that is not well formed; every
 * length in the file is checked before it is used.
 */
int ordma_pcap_read(OrdmaPcapReader *r, OrdmaPcapBlock *b);

#endif
