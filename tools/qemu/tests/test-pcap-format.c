/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host unit test of the pcapng blocks the port's capture writes
 * (tools/qemu/ordma-pcap-format.c), built with the sanitizers.  Blocks
 * are checked byte by byte against the pcapng layout, read back with
 * the reader, and the reader is fed every prefix of a file and files
 * with lengths that lie, each a heap block of its exact size, so that
 * AddressSanitizer reports a read of even one byte past it.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ordma-pcap-format.h"
#include "ordma_test.h"

static uint32_t get32(const uint8_t *p)
{
    return (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 |
           (uint32_t)p[1] << 8 | p[0];
}

static uint16_t get16(const uint8_t *p)
{
    return (uint16_t)(p[1] << 8 | p[0]);
}

static uint8_t *heap_copy(const void *p, size_t len)
{
    uint8_t *c = malloc(len ? len : 1);

    if (len) {
        memcpy(c, p, len);
    }
    return c;
}

static bool comment_is(const OrdmaPcapMarks *m, const char *want)
{
    char buf[ORDMA_PCAP_COMMENT_MAX];
    size_t n = ordma_pcap_comment(m, buf, sizeof(buf));

    if (n != strlen(want) || strcmp(buf, want)) {
        NOTE("comment \"%s\", want \"%s\"", buf, want);
        return false;
    }
    return true;
}

TEST(comment_each_mark)
{
    OrdmaPcapMarks m;

    memset(&m, 0, sizeof(m));
    CHECK(comment_is(&m, ""));
    CHECK(comment_is(NULL, ""));
    m.loss = true;
    CHECK(comment_is(&m, "loss"));
    memset(&m, 0, sizeof(m));
    m.corrupt = true;
    CHECK(comment_is(&m, "corrupt bit 0"));
    m.corrupt_bit = 1234;
    CHECK(comment_is(&m, "corrupt bit 1234"));
    memset(&m, 0, sizeof(m));
    m.dup = true;
    CHECK(comment_is(&m, "dup"));
    memset(&m, 0, sizeof(m));
    m.reorder = true;
    CHECK(comment_is(&m, "reorder"));
    memset(&m, 0, sizeof(m));
    m.late_us = 200;
    CHECK(comment_is(&m, "late 200 us"));
    memset(&m, 0, sizeof(m));
    m.delay_us = 50;
    CHECK(comment_is(&m, "delay 50 us"));
}

TEST(comment_all_marks_fit)
{
    OrdmaPcapMarks m = {
        .loss = true, .corrupt = true, .dup = true, .reorder = true,
        .corrupt_bit = UINT32_MAX, .late_us = UINT32_MAX,
        .delay_us = UINT32_MAX,
    };
    char small[8];

    CHECK(comment_is(&m, "loss, corrupt bit 4294967295, dup, reorder, "
                     "late 4294967295 us, delay 4294967295 us"));
    /* cut, still terminated */
    CHECK_EQ(ordma_pcap_comment(&m, small, sizeof(small)), 7);
    CHECK(!strcmp(small, "loss, c"));
    CHECK_EQ(ordma_pcap_comment(&m, small, 0), 0);
}

TEST(shb_layout)
{
    uint8_t b[64];
    size_t n = ordma_pcap_shb(b, sizeof(b), "ORDMA");

    /* 12 + 16 body + 4+8 appl + 4 end */
    REQUIRE_EQ(n, 44);
    CHECK_EQ(get32(b), ORDMA_PCAP_BT_SHB);
    CHECK_EQ(get32(b + 4), 44);
    CHECK_EQ(get32(b + 8), ORDMA_PCAP_BYTE_ORDER);
    CHECK_EQ(get16(b + 12), 1);
    CHECK_EQ(get16(b + 14), 0);
    CHECK_EQ(get32(b + 16), 0xffffffff);
    CHECK_EQ(get32(b + 20), 0xffffffff);
    CHECK_EQ(get16(b + 24), 4);             /* shb_userappl */
    CHECK_EQ(get16(b + 26), 5);
    CHECK(!memcmp(b + 28, "ORDMA\0\0\0", 8));
    CHECK_EQ(get32(b + 36), 0);             /* opt_endofopt */
    CHECK_EQ(get32(b + 40), 44);
    CHECK_EQ(ordma_pcap_shb(b, 43, "ORDMA"), 0);
    CHECK_EQ(ordma_pcap_shb(b, sizeof(b), NULL), 32);
}

TEST(idb_layout)
{
    uint8_t b[64];
    size_t n = ordma_pcap_idb(b, sizeof(b), "nic0", 128);

    /* 12 + 8 + 4+4 name + 4+4 tsresol + 4 end */
    REQUIRE_EQ(n, 40);
    CHECK_EQ(get32(b), ORDMA_PCAP_BT_IDB);
    CHECK_EQ(get32(b + 4), 40);
    CHECK_EQ(get16(b + 8), ORDMA_PCAP_LINK_ETHERNET);
    CHECK_EQ(get32(b + 12), 128);
    CHECK_EQ(get16(b + 16), 2);             /* if_name */
    CHECK_EQ(get16(b + 18), 4);
    CHECK(!memcmp(b + 20, "nic0", 4));
    CHECK_EQ(get16(b + 24), 9);             /* if_tsresol */
    CHECK_EQ(get16(b + 26), 1);
    CHECK_EQ(b[28], 9);
    CHECK_EQ(b[29] | b[30] | b[31], 0);
    CHECK_EQ(get32(b + 32), 0);
    CHECK_EQ(get32(b + 36), 40);
    CHECK_EQ(ordma_pcap_idb(b, 39, "nic0", 128), 0);
}

TEST(epb_layout_and_padding)
{
    uint8_t frame[61], b[256];
    size_t i, n;

    for (i = 0; i < sizeof(frame); i++) {
        frame[i] = (uint8_t)(i + 1);
    }
    memset(b, 0xee, sizeof(b));
    n = ordma_pcap_epb(b, sizeof(b), 3, 0x123456789abcdef0ULL,
                       ORDMA_PCAP_DIR_OUT, frame, sizeof(frame), 0, "dup");
    /* 12 + 20 + 64 frame + 4+4 comment + 4+4 flags + 4 end */
    REQUIRE_EQ(n, 116);
    CHECK_EQ(n, ordma_pcap_epb_size(sizeof(frame), 0, "dup"));
    CHECK_EQ(get32(b), ORDMA_PCAP_BT_EPB);
    CHECK_EQ(get32(b + 4), 116);
    CHECK_EQ(get32(b + 8), 3);
    CHECK_EQ(get32(b + 12), 0x12345678);
    CHECK_EQ(get32(b + 16), 0x9abcdef0);
    CHECK_EQ(get32(b + 20), 61);
    CHECK_EQ(get32(b + 24), 61);
    CHECK(!memcmp(b + 28, frame, 61));
    CHECK_EQ(b[89] | b[90] | b[91], 0);     /* padding is zero */
    CHECK_EQ(get16(b + 92), 1);             /* opt_comment */
    CHECK_EQ(get16(b + 94), 3);
    CHECK(!memcmp(b + 96, "dup\0", 4));
    CHECK_EQ(get16(b + 100), 2);            /* epb_flags */
    CHECK_EQ(get16(b + 102), 4);
    CHECK_EQ(get32(b + 104), ORDMA_PCAP_DIR_OUT);
    CHECK_EQ(get32(b + 108), 0);
    CHECK_EQ(get32(b + 112), 116);
    CHECK_EQ(b[116], 0xee);                 /* nothing past the block */
    CHECK_EQ(ordma_pcap_epb(b, 115, 3, 0, ORDMA_PCAP_DIR_OUT, frame,
                            sizeof(frame), 0, "dup"), 0);
}

TEST(epb_snaplen_keeps_the_original_length)
{
    uint8_t frame[100] = { 1, 2, 3 }, b[256];
    size_t n = ordma_pcap_epb(b, sizeof(b), 0, 1, ORDMA_PCAP_DIR_IN, frame,
                              sizeof(frame), 14, NULL);

    /* 12 + 20 + 16 + 4+4 flags + 4 end, no comment */
    REQUIRE_EQ(n, 60);
    CHECK_EQ(get32(b + 20), 14);
    CHECK_EQ(get32(b + 24), 100);
    CHECK_EQ(get16(b + 44), 2);             /* flags follow the data */
    CHECK_EQ(get32(b + 48), ORDMA_PCAP_DIR_IN);
    /* a snaplen above the length changes nothing */
    CHECK_EQ(ordma_pcap_epb_size(sizeof(frame), 1000, ""),
             ordma_pcap_epb_size(sizeof(frame), 0, NULL));
}

/* A file: section, two interfaces, three frames */
/* An InfiniBand interface differs from an Ethernet one in its link type
 * only, and an Ethernet one is what it was.
 */
TEST(idb_link_infiniband)
{
    uint8_t eth[64], ib[64], idb[64];
    size_t n = ordma_pcap_idb_link(ib, sizeof(ib),
                                   ORDMA_PCAP_LINK_INFINIBAND, "ib0", 0);
    OrdmaPcapReader r;
    OrdmaPcapBlock b;
    uint8_t f[256];
    size_t m;

    REQUIRE_EQ(n, ordma_pcap_idb(eth, sizeof(eth), "ib0", 0));
    CHECK_EQ(get16(ib + 8), 247);
    CHECK_EQ(get16(ib + 10), 0);
    ib[8] = ORDMA_PCAP_LINK_ETHERNET;
    CHECK(!memcmp(ib, eth, n));
    CHECK_EQ(ordma_pcap_idb_link(idb, n - 1, ORDMA_PCAP_LINK_INFINIBAND,
                                 "ib0", 0), 0);
    REQUIRE_EQ(ordma_pcap_idb_link(idb, sizeof(idb),
                                   ORDMA_PCAP_LINK_ETHERNET, "ib0", 0), n);
    CHECK(!memcmp(idb, eth, n));

    m = ordma_pcap_shb(f, sizeof(f), NULL);
    m += ordma_pcap_idb_link(f + m, sizeof(f) - m,
                             ORDMA_PCAP_LINK_INFINIBAND, "ib0", 0);
    ordma_pcap_reader_init(&r, f, m);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.type, ORDMA_PCAP_BT_IDB);
    CHECK_EQ(b.linktype, ORDMA_PCAP_LINK_INFINIBAND);
    CHECK(b.name_len == 3 && !memcmp(b.name, "ib0", 3));
    CHECK_EQ(ordma_pcap_read(&r, &b), 0);
}

static size_t build_file(uint8_t *f, size_t room)
{
    static const uint8_t frame[70] = { 0x52, 0x54, 0, 0x12, 0x34, 2 };
    OrdmaPcapMarks m = { .corrupt = true, .corrupt_bit = 77 };
    char c[ORDMA_PCAP_COMMENT_MAX];
    size_t n = 0;

    ordma_pcap_comment(&m, c, sizeof(c));
    n += ordma_pcap_shb(f + n, room - n, "test");
    n += ordma_pcap_idb(f + n, room - n, "wire1", 0);
    n += ordma_pcap_epb(f + n, room - n, 0, 1000, ORDMA_PCAP_DIR_OUT,
                        frame, sizeof(frame), 0, c);
    n += ordma_pcap_idb(f + n, room - n, "wire1", 32);
    n += ordma_pcap_epb(f + n, room - n, 1, 2000, ORDMA_PCAP_DIR_IN,
                        frame, sizeof(frame), 32, NULL);
    n += ordma_pcap_epb(f + n, room - n, 1, 3000, ORDMA_PCAP_DIR_OUT,
                        frame, 1, 32, "loss");
    return n;
}

TEST(read_back)
{
    uint8_t f[1024];
    size_t n = build_file(f, sizeof(f));
    uint8_t *h = heap_copy(f, n);
    OrdmaPcapReader r;
    OrdmaPcapBlock b;

    ordma_pcap_reader_init(&r, h, n);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.type, ORDMA_PCAP_BT_SHB);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.type, ORDMA_PCAP_BT_IDB);
    CHECK_EQ(b.linktype, 1);
    CHECK_EQ(b.snaplen, 0);
    CHECK_EQ(b.tsresol, 9);
    CHECK(b.name_len == 5 && !memcmp(b.name, "wire1", 5));
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.type, ORDMA_PCAP_BT_EPB);
    CHECK_EQ(b.ifid, 0);
    CHECK_EQ(b.ts, 1000);
    CHECK_EQ(b.caplen, 70);
    CHECK_EQ(b.origlen, 70);
    CHECK_EQ(b.data[0], 0x52);
    CHECK(b.has_flags && b.flags == ORDMA_PCAP_DIR_OUT);
    CHECK(b.comment_len == 14 && !memcmp(b.comment, "corrupt bit 77", 14));
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.snaplen, 32);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.ifid, 1);
    CHECK_EQ(b.caplen, 32);
    CHECK_EQ(b.origlen, 70);
    CHECK(b.has_flags && b.flags == ORDMA_PCAP_DIR_IN);
    CHECK(!b.comment);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.caplen, 1);
    CHECK(b.comment_len == 4 && !memcmp(b.comment, "loss", 4));
    CHECK_EQ(ordma_pcap_read(&r, &b), 0);
    CHECK_EQ(ordma_pcap_read(&r, &b), 0);
    free(h);
}

/* Every prefix: whole blocks read, then the end or an error, no overrun */
TEST(read_every_prefix)
{
    uint8_t f[1024];
    size_t n = build_file(f, sizeof(f)), len, ends[8], nends = 0, off = 0;
    OrdmaPcapReader r;
    OrdmaPcapBlock b;

    /* where the blocks end */
    while (off < n) {
        off += get32(f + off + 4);
        ends[nends++] = off;
    }
    for (len = 0; len < n; len++) {
        uint8_t *h = heap_copy(f, len);
        size_t whole = 0, i;
        int ret;

        for (i = 0; i < nends; i++) {
            whole += ends[i] <= len;
        }
        ordma_pcap_reader_init(&r, h, len);
        for (i = 0; (ret = ordma_pcap_read(&r, &b)) == 1; i++) {
            ;
        }
        if (!CHECK_EQ(i, whole) ||
            !CHECK_EQ(ret, len == ends[whole ? whole - 1 : 0] && whole ?
                      0 : -1)) {
            NOTE("prefix of %zu bytes", len);
            free(h);
            return;
        }
        free(h);
    }
}

TEST(read_rejects_lying_lengths)
{
    uint8_t f[1024];
    size_t n = build_file(f, sizeof(f));
    size_t shb = get32(f + 4), idb = get32(f + shb + 4), epb = shb + idb;
    OrdmaPcapReader r;
    OrdmaPcapBlock b;
    static const struct {
        size_t at;                  /* from the EPB */
        uint32_t val;
    } lies[] = {
        { 4, 0 }, { 4, 8 }, { 4, 13 }, { 4, 0xfffffffc },
        { 20, 71 },                 /* captured > original */
        { 20, 0xffffffff },
        { 24, 0xffffffff },         /* with captured 70: fine */
        { 100 + 2, 0xffff },        /* the comment runs past the block */
    };
    size_t i;

    for (i = 0; i < sizeof(lies) / sizeof(lies[0]); i++) {
        uint8_t *h = heap_copy(f, n);
        int ret;

        h[epb + lies[i].at] = lies[i].val & 0xff;
        h[epb + lies[i].at + 1] = (lies[i].val >> 8) & 0xff;
        if (lies[i].at != 102) {
            h[epb + lies[i].at + 2] = (lies[i].val >> 16) & 0xff;
            h[epb + lies[i].at + 3] = lies[i].val >> 24;
        }
        ordma_pcap_reader_init(&r, h, n);
        ordma_pcap_read(&r, &b);
        ordma_pcap_read(&r, &b);
        ret = ordma_pcap_read(&r, &b);
        if (lies[i].at == 24) {
            CHECK_EQ(ret, 1);
        } else if (!CHECK_EQ(ret, -1)) {
            NOTE("lie %zu read as a block", i);
        }
        free(h);
    }
    /* not a pcapng file */
    {
        static const char pcap[] = "\xd4\xc3\xb2\xa1 a pcap file, not pcapng";
        uint8_t *h = heap_copy(pcap, sizeof(pcap) - 1);

        ordma_pcap_reader_init(&r, h, sizeof(pcap) - 1);
        CHECK_EQ(ordma_pcap_read(&r, &b), -1);
        free(h);
    }
}

/* The same blocks in big endian (as a big-endian host writes them) */
TEST(read_big_endian)
{
    uint8_t f[1024];
    size_t n = build_file(f, sizeof(f)), off = 0;
    OrdmaPcapReader r;
    OrdmaPcapBlock b;
    uint8_t *h;

    /*
     * Swap the words that are numbers: block type and lengths, the SHB
     * magic, the IDB link type and snaplen, the EPB's five fields.
     * Options of the blocks here are swapped field by field.
     */
    while (off < n) {
        uint32_t type = get32(f + off), size = get32(f + off + 4);
        uint8_t *p = f + off, *o, *end = p + size - 4;
        size_t body;

#define SWAP32(q) do { uint8_t t_ = (q)[0]; (q)[0] = (q)[3]; (q)[3] = t_; \
                       t_ = (q)[1]; (q)[1] = (q)[2]; (q)[2] = t_; } while (0)
#define SWAP16(q) do { uint8_t t_ = (q)[0]; (q)[0] = (q)[1]; (q)[1] = t_; \
                     } while (0)
        body = type == ORDMA_PCAP_BT_SHB ? 16 : type == ORDMA_PCAP_BT_IDB ?
               8 : 20 + ((get32(p + 20) + 3) & ~3u);
        if (type == ORDMA_PCAP_BT_SHB) {
            SWAP32(p + 8);
            SWAP16(p + 12);
            SWAP16(p + 14);
        } else if (type == ORDMA_PCAP_BT_IDB) {
            SWAP16(p + 8);
            SWAP32(p + 12);
        } else {
            SWAP32(p + 8);
            SWAP32(p + 12);
            SWAP32(p + 16);
            SWAP32(p + 20);
            SWAP32(p + 24);
        }
        for (o = p + 8 + body; o + 4 <= end;) {
            uint16_t code = get16(o), len = get16(o + 2);

            if (type == ORDMA_PCAP_BT_EPB && code == 2) {
                SWAP32(o + 4);
            }
            SWAP16(o);
            SWAP16(o + 2);
            o += 4 + ((len + 3) & ~3u);
        }
        SWAP32(p);
        SWAP32(p + 4);
        SWAP32(p + size - 4);
        off += size;
    }
    h = heap_copy(f, n);
    ordma_pcap_reader_init(&r, h, n);
    CHECK_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.tsresol, 9);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.type, ORDMA_PCAP_BT_EPB);
    CHECK_EQ(b.ts, 1000);
    CHECK_EQ(b.caplen, 70);
    CHECK(b.has_flags && b.flags == ORDMA_PCAP_DIR_OUT);
    CHECK(b.comment_len == 14 && !memcmp(b.comment, "corrupt bit 77", 14));
    CHECK_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(ordma_pcap_read(&r, &b), 0);
    free(h);
}
