/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * pcap-icrc: checks the ICRC of every RoCEv2 frame of a pcapng capture
 * of an ORDMA port (-device ordma,pcap=FILE) with the firmware's own
 * ICRC code (firmware/wire/fw_icrc.c), and holds the result of each
 * frame the port sent against its comment: a frame the wire corrupted
 * ("corrupt bit N") must fail its ICRC, every other one must pass.  The
 * frames the port received carry no comment (their sender's capture
 * has it): their bad ICRCs are counted, to be compared with what the
 * other end of the cable corrupted.  Wireshark shows the ICRC of a RoCE
 * frame but does not check it.
 *
 * Usage: pcap-icrc [-v] FILE...
 *   -v   one line per RoCEv2 frame: number, direction, length, the ICRC
 *        in the frame and as computed, good/bad, the comment
 * The last line sums up every file:
 *   "N frames: N out (N lost), N in; RoCEv2 out N: ICRC N good, N bad,
 *    N bad not marked corrupt, N marked corrupt but good; RoCEv2 in N:
 *    ICRC N good, N bad; N cut by the snap length; marks: N loss,
 *    N reorder, N dup, N corrupt, N delay"
 * where "lost" are the frames marked loss, and the marks are counted as
 * the port's wire-injected-* counters and its exit report count the
 * faults: the second copy of a corrupted frame that was duplicated is
 * corrupted too (and marked so), but is one corruption.
 * Exit status: 0 when the ICRCs of the frames sent agree with their
 * comments, 1 when they do not, 2 for a file that cannot be read or is
 * not well formed pcapng.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ordma-pcap-format.h"
#include "fw_roce_wire.h"

#define ETH_HLEN        14
#define ETH_VLAN        0x8100
#define ETH_IPV4        0x0800
#define ETH_IPV6        0x86dd
#define IPV6_HLEN       40
#define UDP_HLEN        8
#define BTH_LEN         12
#define ICRC_LEN        4
#define ROCE_PORT       4791

/* the marks counted, in the order of the port's wire fault report */
static const char *const mark_names[] = {
    "loss", "reorder", "dup", "corrupt", "delay",
};
#define MARKS (sizeof(mark_names) / sizeof(mark_names[0]))
#define MARK_LOSS       0
#define MARK_DUP        2
#define MARK_CORRUPT    3

enum { OUT, IN };

typedef struct Totals {
    unsigned long frames, dir[2], lost, cut, marks[MARKS];
    unsigned long roce[2], good[2], bad[2];     /* RoCEv2 frames */
    unsigned long bad_marked, good_marked;      /* out: marked corrupt */
} Totals;

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[0] << 8 | p[1]);
}

/*
 * A RoCEv2 frame: the offset of its IP header, the IP header's length
 * and the length from the IP header to the end of the UDP datagram.
 */
static bool roce_packet(const uint8_t *f, size_t len, size_t *l3,
                        size_t *ip_hlen, size_t *pkt_len)
{
    size_t off = ETH_HLEN, hl, udp, ip_end;
    uint16_t type;

    if (len < ETH_HLEN) {
        return false;
    }
    type = get16(f + 12);
    if (type == ETH_VLAN) {
        if (len < ETH_HLEN + 4) {
            return false;
        }
        type = get16(f + 16);
        off += 4;
    }
    if (type == ETH_IPV4) {
        if (len - off < 20 || f[off] >> 4 != 4 || f[off + 9] != 17) {
            return false;
        }
        hl = (size_t)(f[off] & 0xf) * 4;
        ip_end = off + get16(f + off + 2);
    } else if (type == ETH_IPV6) {
        if (len - off < IPV6_HLEN || f[off] >> 4 != 6 || f[off + 6] != 17) {
            return false;
        }
        hl = IPV6_HLEN;
        ip_end = off + IPV6_HLEN + get16(f + off + 4);
    } else {
        return false;
    }
    udp = off + hl;
    if (hl < 20 || ip_end > len || ip_end < udp + UDP_HLEN ||
        get16(f + udp + 2) != ROCE_PORT ||
        get16(f + udp + 4) < UDP_HLEN + BTH_LEN + ICRC_LEN ||
        udp + get16(f + udp + 4) > ip_end) {
        return false;
    }
    *l3 = off;
    *ip_hlen = hl;
    *pkt_len = udp + get16(f + udp + 4) - off;
    return true;
}

/*
 * Counts the marks of the comment of a frame sent ("corrupt bit 12,
 * dup": each mark's first word); returns whether it says corrupt.
 */
static bool count_marks(const OrdmaPcapBlock *b, Totals *t)
{
    const char *c = b->comment, *end = c + b->comment_len;
    bool seen[MARKS] = { false };
    size_t m;

    while (c && c < end) {
        size_t word = 0;

        while (c + word < end && c[word] != ' ' && c[word] != ',') {
            word++;
        }
        for (m = 0; m < MARKS; m++) {
            if (word == strlen(mark_names[m]) &&
                !memcmp(c, mark_names[m], word)) {
                seen[m] = true;
            }
        }
        /* on to the next mark, after ", " */
        while (c < end && *c != ',') {
            c++;
        }
        while (c < end && (*c == ',' || *c == ' ')) {
            c++;
        }
    }
    for (m = 0; m < MARKS; m++) {
        /* a corrupted frame's duplicate: the same corruption again */
        if (seen[m] && !(m == MARK_CORRUPT && seen[MARK_DUP])) {
            t->marks[m]++;
        }
    }
    t->lost += seen[MARK_LOSS];
    return seen[MARK_CORRUPT];
}

/* Maps a whole file; NULL (errno) on failure, or for an empty file */
static uint8_t *map_file(const char *path, size_t *len)
{
    struct stat st;
    void *p;
    int fd = open(path, O_RDONLY);

    if (fd < 0) {
        return NULL;
    }
    if (fstat(fd, &st) || !st.st_size) {
        errno = errno ? errno : ENODATA;
        close(fd);
        return NULL;
    }
    p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
    close(fd);
    if (p == MAP_FAILED) {
        return NULL;
    }
    *len = (size_t)st.st_size;
    return p;
}

static int check_file(const char *path, bool verbose, Totals *t)
{
    OrdmaPcapReader r;
    OrdmaPcapBlock b;
    unsigned long n = 0;
    size_t len = 0;
    uint8_t *buf = map_file(path, &len);
    int ret;

    if (!buf) {
        fprintf(stderr, "pcap-icrc: %s: %s\n", path, strerror(errno));
        return 2;
    }
    ordma_pcap_reader_init(&r, buf, len);
    while ((ret = ordma_pcap_read(&r, &b)) == 1) {
        size_t l3, ip_hlen, pkt_len;
        uint32_t want, got;
        bool corrupt, good;
        int dir;

        if (b.type != ORDMA_PCAP_BT_EPB) {
            continue;
        }
        n++;
        t->frames++;
        /* a marker (pcap-mark) has no direction, and is no frame's mark */
        corrupt = false;
        if (b.has_flags && (b.flags & 3) == ORDMA_PCAP_DIR_IN) {
            dir = IN;
        } else if (b.has_flags && (b.flags & 3) == ORDMA_PCAP_DIR_OUT) {
            dir = OUT;
            corrupt = count_marks(&b, t);
        } else {
            continue;
        }
        t->dir[dir]++;
        if (!roce_packet(b.data, b.caplen, &l3, &ip_hlen, &pkt_len)) {
            /* cut by the snap length: an IP frame may have been RoCE */
            if (b.caplen < b.origlen && b.caplen >= ETH_HLEN &&
                (get16(b.data + 12) == ETH_IPV4 ||
                 get16(b.data + 12) == ETH_IPV6 ||
                 get16(b.data + 12) == ETH_VLAN)) {
                t->cut++;
            }
            continue;
        }
        t->roce[dir]++;
        want = fw_roce_icrc(b.data + l3, ip_hlen, pkt_len);
        got = (uint32_t)b.data[l3 + pkt_len - 4] |
              (uint32_t)b.data[l3 + pkt_len - 3] << 8 |
              (uint32_t)b.data[l3 + pkt_len - 2] << 16 |
              (uint32_t)b.data[l3 + pkt_len - 1] << 24;
        good = want == got;
        if (good) {
            t->good[dir]++;
            t->good_marked += corrupt;
        } else {
            t->bad[dir]++;
            t->bad_marked += corrupt;
        }
        if (verbose || (dir == OUT && good == corrupt)) {
            printf("%s: frame %lu %s %u bytes: ICRC %08x, computed %08x: "
                   "%s%s%.*s%s\n", path, n,
                   dir == IN ? "in" : "out", b.origlen, got, want,
                   good ? "good" : "bad",
                   b.comment ? " (" : "", (int)b.comment_len,
                   b.comment ? b.comment : "", b.comment ? ")" : "");
        }
    }
    munmap(buf, len);
    if (ret < 0) {
        fprintf(stderr, "pcap-icrc: %s: not well formed pcapng at byte %zu: "
                "%s\n", path, r.off, r.error);
        return 2;
    }
    return 0;
}

int main(int argc, char **argv)
{
    Totals t = { 0 };
    bool verbose = false;
    int i = 1, rc = 0;

    if (i < argc && !strcmp(argv[i], "-v")) {
        verbose = true;
        i++;
    }
    if (i >= argc) {
        fprintf(stderr, "usage: pcap-icrc [-v] FILE...\n");
        return 2;
    }
    for (; i < argc; i++) {
        int r = check_file(argv[i], verbose, &t);

        rc = r > rc ? r : rc;
    }
    printf("%lu frames: %lu out (%lu lost), %lu in; RoCEv2 out %lu: ICRC "
           "%lu good, %lu bad, %lu bad not marked corrupt, %lu marked "
           "corrupt but good; RoCEv2 in %lu: ICRC %lu good, %lu bad; %lu cut "
           "by the snap length; marks: %lu loss, %lu reorder, %lu dup, %lu "
           "corrupt, %lu delay\n", t.frames, t.dir[OUT], t.lost, t.dir[IN],
           t.roce[OUT], t.good[OUT], t.bad[OUT], t.bad[OUT] - t.bad_marked,
           t.good_marked, t.roce[IN], t.good[IN], t.bad[IN], t.cut,
           t.marks[0], t.marks[1], t.marks[2], t.marks[3], t.marks[4]);
    if (!rc && (t.bad[OUT] != t.bad_marked || t.good_marked)) {
        rc = 1;
    }
    return rc;
}
