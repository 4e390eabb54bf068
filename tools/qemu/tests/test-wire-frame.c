/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host unit test of the cable's impairments frame by frame
 * (tools/qemu/ordma-wire-frame.c), built with the sanitizers: every frame
 * handed to the code under test is a heap block of exactly its length,
 * so AddressSanitizer reports a read of even one byte past it.
 *
 * A corruption is checked from scratch each time: exactly one bit after
 * the BTH differs from the frame sent, it is the bit asked for, and the
 * UDP checksum, summed again over the IPv4 or IPv6 pseudo-header and the
 * datagram (an odd one padded with a zero byte), is still right.
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "ordma-wire-frame.h"
#include "ordma_test.h"

#define ETH_HLEN        14
#define VLAN_HLEN       4
#define IPV4_HLEN       20
#define IPV6_HLEN       40
#define UDP_HLEN        8
#define BTH_LEN         12
#define ROCE_PORT       4791
#define IPV4_DF         0x4000
#define IPV4_MF         0x2000

/* What build_frame() makes: Ethernet, IP, UDP to 4791, BTH, bytes after */
typedef struct FrameSpec {
    bool vlan;
    bool ipv6;
    unsigned int ip_opt_words;      /* IPv4 options, in 4-byte words */
    size_t after_bth;               /* extension headers, payload, ICRC */
    size_t eth_pad;                 /* bytes past the IP packet */
    bool no_csum;                   /* UDP checksum 0: none */
    uint16_t frag;                  /* IPv4 flags and fragment offset */
    uint16_t ethertype;             /* 0: IPv4 or IPv6 as ipv6 says */
    uint8_t ip_proto;               /* 0: UDP */
    uint16_t dport;                 /* 0: 4791 */
} FrameSpec;

typedef struct TestFrame {
    uint8_t *data;                  /* heap block of exactly len bytes */
    size_t len;
    size_t l3, udp, end;
    bool ipv6;
} TestFrame;

static uint64_t test_rng = 0x0123456789abcdefULL;

static uint8_t test_byte(void)
{
    return ordma_wire_rand(&test_rng) >> 56;
}

/* An exact-size heap copy of len bytes of p (malloc(0) for none) */
static uint8_t *heap_copy(const void *p, size_t len)
{
    uint8_t *c = malloc(len);

    if (len) {
        memcpy(c, p, len);
    }
    return c;
}

static void put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v;
}

static uint16_t get16(const uint8_t *p)
{
    return p[0] << 8 | p[1];
}

/* RFC 1071 over big-endian words; an odd last byte is padded with zero */
static uint64_t csum_add(uint64_t sum, const uint8_t *p, size_t len)
{
    size_t i;

    for (i = 0; i < len; i++) {
        sum += i % 2 ? p[i] : (uint64_t)p[i] << 8;
    }
    return sum;
}

static uint16_t csum_fold(uint64_t sum)
{
    while (sum >> 16) {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    return sum;
}

/* Pseudo-header and datagram [udp, udp + udp_len), checksum included */
static uint64_t udp_sum(const uint8_t *f, size_t l3, bool ipv6, size_t udp,
                        size_t udp_len)
{
    uint64_t sum = 0;

    if (ipv6) {
        sum = csum_add(sum, f + l3 + 8, 32);
    } else {
        sum = csum_add(sum, f + l3 + 12, 8);
    }
    sum += 17 + udp_len;
    return csum_add(sum, f + udp, udp_len);
}

static bool udp_csum_ok(const TestFrame *t, const uint8_t *f)
{
    return csum_fold(udp_sum(f, t->l3, t->ipv6, t->udp,
                             t->end - t->udp)) == 0xffff;
}

static void build_frame(const FrameSpec *s, TestFrame *t)
{
    size_t ip_hlen = s->ipv6 ? IPV6_HLEN : IPV4_HLEN + 4 * s->ip_opt_words;
    size_t l4_len = UDP_HLEN + BTH_LEN + s->after_bth;
    uint8_t *f;
    size_t i, l3 = ETH_HLEN;
    uint16_t type = s->ethertype ? s->ethertype :
                    s->ipv6 ? 0x86dd : 0x0800;
    uint16_t c;

    t->len = ETH_HLEN + (s->vlan ? VLAN_HLEN : 0) + ip_hlen + l4_len +
             s->eth_pad;
    f = t->data = malloc(t->len);
    memcpy(f, "\x52\x54\x00\x12\x34\x02\x52\x54\x00\x12\x34\x01", 12);
    if (s->vlan) {
        put16(f + 12, 0x8100);
        put16(f + 14, 0x6005);      /* priority 3, VLAN 5 */
        l3 += VLAN_HLEN;
    }
    put16(f + l3 - 2, type);
    t->l3 = l3;
    t->ipv6 = s->ipv6;
    t->udp = l3 + ip_hlen;
    t->end = t->udp + l4_len;
    if (s->ipv6) {
        put16(f + l3, 0x6000);
        put16(f + l3 + 2, 0x1234);  /* flow label */
        put16(f + l3 + 4, l4_len);
        f[l3 + 6] = s->ip_proto ? s->ip_proto : 17;
        f[l3 + 7] = 64;
        for (i = 0; i < 32; i++) {
            f[l3 + 8 + i] = test_byte();
        }
    } else {
        f[l3] = 0x40 | (ip_hlen / 4);
        f[l3 + 1] = 0;
        put16(f + l3 + 2, ip_hlen + l4_len);
        put16(f + l3 + 4, 0x4321);
        put16(f + l3 + 6, s->frag);
        f[l3 + 8] = 64;
        f[l3 + 9] = s->ip_proto ? s->ip_proto : 17;
        put16(f + l3 + 10, 0);
        memcpy(f + l3 + 12, "\xc0\x00\x02\x01\xc0\x00\x02\x02", 8);
        memset(f + l3 + IPV4_HLEN, 1, ip_hlen - IPV4_HLEN);    /* NOPs */
        put16(f + l3 + 10, ~csum_fold(csum_add(0, f + l3, ip_hlen)));
    }
    put16(f + t->udp, 0xc000 | test_byte());
    put16(f + t->udp + 2, s->dport ? s->dport : ROCE_PORT);
    put16(f + t->udp + 4, l4_len);
    put16(f + t->udp + 6, 0);
    f[t->udp + 8] = 0x04;           /* BTH: SEND only ... */
    for (i = t->udp + 9; i < t->end; i++) {
        f[i] = test_byte();
    }
    /* Ethernet padding, not zero: the checksum must not see it */
    memset(f + t->end, 0xa5, s->eth_pad);
    if (!s->no_csum) {
        c = ~csum_fold(udp_sum(f, l3, s->ipv6, t->udp, l4_len));
        put16(f + t->udp + 6, c ? c : 0xffff);
    }
}

static void free_frame(TestFrame *t)
{
    free(t->data);
    t->data = NULL;
}

/* The bits ordma_wire_corrupt() chooses among */
static uint64_t corrupt_bits(const TestFrame *t)
{
    return (uint64_t)(t->end - t->udp - UDP_HLEN - BTH_LEN) * 8;
}

/*
 * One corruption of t with bit, into an exact-size heap block (or in
 * place), checked from scratch; the checks failed are reported.
 */
static bool check_corrupt(const TestFrame *t, uint64_t bit, bool in_place)
{
    uint64_t pos = (t->udp + UDP_HLEN + BTH_LEN) * 8 +
                   bit % corrupt_bits(t);
    uint8_t *out = in_place ? heap_copy(t->data, t->len) : malloc(t->len);
    unsigned int fails = ordma_test_failures();
    size_t i, diffs = 0;
    uint16_t csum = get16(t->data + t->udp + 6);

    if (!CHECK(ordma_wire_corrupt(in_place ? out : t->data, t->len, bit,
                                  out))) {
        free(out);
        return false;
    }
    for (i = 0; i < t->len; i++) {
        uint8_t want = i == pos / 8 ? 1 << (pos % 8) : 0;

        if (i == t->udp + 6 || i == t->udp + 7) {
            continue;
        }
        if ((out[i] ^ t->data[i]) != want) {
            diffs++;
        }
    }
    if (!CHECK_EQ(diffs, 0)) {
        NOTE("bit %llu of a %zu-byte frame, datagram [%zu, %zu)",
             (unsigned long long)bit, t->len, t->udp, t->end);
    }
    if (csum) {
        CHECK(get16(out + t->udp + 6) != 0);
        if (!CHECK(udp_csum_ok(t, out))) {
            NOTE("UDP checksum wrong after flipping byte %zu of a "
                 "%zu-byte frame, datagram [%zu, %zu)", (size_t)(pos / 8),
                 t->len, t->udp, t->end);
        }
    } else {
        CHECK_EQ(get16(out + t->udp + 6), 0);
    }
    free(out);
    return ordma_test_failures() == fails;
}

/* Every bit the corruption may flip, once each; stops at the first fault */
static void check_every_bit(const TestFrame *t)
{
    uint64_t b, n = corrupt_bits(t);

    for (b = 0; b < n; b++) {
        if (!check_corrupt(t, b, b % 3 == 0)) {
            return;
        }
    }
}

static bool roce(const TestFrame *t, size_t *udp, size_t *end)
{
    size_t u = SIZE_MAX, e = SIZE_MAX;
    bool r = ordma_wire_roce(t->data, t->len, &u, &e);

    if (udp) {
        *udp = u;
        *end = e;
    }
    return r;
}

/* A frame that is not RoCEv2: refused, and the output left alone */
static bool check_not_roce(const uint8_t *f, size_t len)
{
    uint8_t *out = malloc(len);
    uint8_t *want = malloc(len);
    unsigned int fails = ordma_test_failures();
    size_t u, e;

    memset(out, 0x5a, len);
    memset(want, 0x5a, len);
    CHECK(!ordma_wire_roce(f, len, &u, &e));
    CHECK(!ordma_wire_corrupt(f, len, 12345, out));
    CHECK(!len || !memcmp(out, want, len));
    free(out);
    free(want);
    return ordma_test_failures() == fails;
}

/* ------------------------------------------------------------------ */
/* The draws                                                           */
/* ------------------------------------------------------------------ */

TEST(splitmix64_known_values)
{
    /* the reference splitmix64.c from seed 0 */
    static const uint64_t want[] = {
        0xe220a8397b1dcdafULL, 0x6e789e6aa1b965f4ULL,
        0x06c45d188009454fULL, 0xf88bb8a8724c81ecULL,
    };
    uint64_t rng = 0;
    size_t i;

    for (i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
        CHECK_EQ(ordma_wire_rand(&rng), want[i]);
    }
    CHECK_EQ(rng, 4 * 0x9e3779b97f4a7c15ULL);
}

TEST(rand_same_seed_same_sequence)
{
    uint64_t a = 12, b = 12, c = 13;
    unsigned int i, same_c = 0;

    for (i = 0; i < 100000; i++) {
        uint64_t ra = ordma_wire_rand(&a);

        CHECK_EQ(ordma_wire_rand(&b), ra);
        same_c += ordma_wire_rand(&c) == ra;
    }
    CHECK_EQ(same_c, 0);
    /* seeding again restarts the sequence */
    a = 12;
    b = ordma_wire_rand(&a);
    a = 12;
    CHECK_EQ(ordma_wire_rand(&a), b);
}

TEST(chance_zero_ppm_never)
{
    static const uint64_t edge[] = {
        0, 1, 0xffffffffULL, 0x100000000ULL, UINT64_MAX / 2, UINT64_MAX,
    };
    uint64_t rng = 1, r;
    unsigned int i;

    for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
        CHECK(!ordma_wire_chance(edge[i], 0));
    }
    for (i = 0; i < 1000000; i++) {
        r = ordma_wire_rand(&rng);
        if (!CHECK(!ordma_wire_chance(r, 0))) {
            return;
        }
    }
}

TEST(chance_million_ppm_always)
{
    static const uint64_t edge[] = {
        0, 1, 0xffffffffULL, 0x100000000ULL, UINT64_MAX / 2, UINT64_MAX,
    };
    uint64_t rng = 2, r;
    unsigned int i;

    for (i = 0; i < sizeof(edge) / sizeof(edge[0]); i++) {
        CHECK(ordma_wire_chance(edge[i], ORDMA_WIRE_PPM_MAX));
    }
    for (i = 0; i < 1000000; i++) {
        r = ordma_wire_rand(&rng);
        if (!CHECK(ordma_wire_chance(r, ORDMA_WIRE_PPM_MAX))) {
            return;
        }
    }
}

/* The documented rule, its rate, and more ppm never selects fewer */
TEST(chance_rate_and_threshold)
{
    static const uint32_t ppm[] = { 1, 100, 5000, 10000, 500000, 999999 };
    uint64_t rng = 3, r;
    unsigned int i, j, hits[6] = { 0 };
    const unsigned int n = 1000000;

    for (i = 0; i < n; i++) {
        r = ordma_wire_rand(&rng);
        for (j = 0; j < 6; j++) {
            bool c = ordma_wire_chance(r, ppm[j]);

            hits[j] += c;
            if (c != (((r >> 32) * 1000000) >> 32 < ppm[j]) ||
                (j && !c && ordma_wire_chance(r, ppm[j - 1]))) {
                CHECK(false);
                return;
            }
        }
    }
    for (j = 0; j < 6; j++) {
        /* within 6 standard deviations of n * p */
        double want = (double)n * ppm[j] / 1e6;
        double dev = want - hits[j];
        double var = want * (1 - ppm[j] / 1e6);

        if (!CHECK(dev * dev <= 36 * var + 36)) {
            NOTE("%u ppm: %u of %u", ppm[j], hits[j], n);
        }
    }
    /* the edges of the rule: k = r >> 32 selects iff k * 10^6 < ppm * 2^32 */
    CHECK(ordma_wire_chance(4294ULL << 32, 1));
    CHECK(!ordma_wire_chance(4295ULL << 32, 1));
}

/* Five numbers per frame whatever the rates: the pattern is the seed's */
TEST(draw_five_numbers_whatever_the_rates)
{
    OrdmaWireRates none = { 0 }, all = {
        ORDMA_WIRE_PPM_MAX, ORDMA_WIRE_PPM_MAX,
        ORDMA_WIRE_PPM_MAX, ORDMA_WIRE_PPM_MAX,
    }, some = { 10000, 5000, 5000, 5000 };
    uint64_t a = 7, b = 7, c = 7, ref = 7;
    OrdmaWireDraw da, db, dc;
    uint64_t r[5];
    unsigned int i, k;

    for (i = 0; i < 100000; i++) {
        ordma_wire_draw(&a, &none, &da);
        ordma_wire_draw(&b, &all, &db);
        ordma_wire_draw(&c, &some, &dc);
        for (k = 0; k < 5; k++) {
            r[k] = ordma_wire_rand(&ref);
        }
        if (!CHECK_EQ(a, ref) || !CHECK_EQ(b, ref) || !CHECK_EQ(c, ref) ||
            !CHECK(!da.loss && !da.corrupt && !da.dup && !da.reorder) ||
            !CHECK(db.loss && db.corrupt && db.dup && db.reorder) ||
            !CHECK_EQ(da.bit, r[2]) || !CHECK_EQ(db.bit, r[2]) ||
            !CHECK_EQ(dc.bit, r[2]) ||
            /* in the order loss, corrupt, bit, dup, reorder */
            !CHECK_EQ(dc.loss, ordma_wire_chance(r[0], some.loss_ppm)) ||
            !CHECK_EQ(dc.corrupt,
                      ordma_wire_chance(r[1], some.corrupt_ppm)) ||
            !CHECK_EQ(dc.dup, ordma_wire_chance(r[3], some.dup_ppm)) ||
            !CHECK_EQ(dc.reorder,
                      ordma_wire_chance(r[4], some.reorder_ppm))) {
            NOTE("frame %u", i);
            return;
        }
    }
}

/* The same seed and rates fault the same frames; another seed others */
TEST(draw_same_seed_same_faults)
{
    OrdmaWireRates rates = { 10000, 5000, 5000, 5000 };
    uint64_t a = 12, b = 12, c = 13;
    OrdmaWireDraw da, db, dc;
    unsigned int i, loss = 0, corrupt = 0, dup = 0, reorder = 0, same = 0;
    const unsigned int n = 200000;

    for (i = 0; i < n; i++) {
        ordma_wire_draw(&a, &rates, &da);
        ordma_wire_draw(&b, &rates, &db);
        ordma_wire_draw(&c, &rates, &dc);
        if (!CHECK(da.loss == db.loss && da.corrupt == db.corrupt &&
                   da.bit == db.bit && da.dup == db.dup &&
                   da.reorder == db.reorder)) {
            return;
        }
        loss += da.loss;
        corrupt += da.corrupt;
        dup += da.dup;
        reorder += da.reorder;
        same += da.loss && dc.loss;
    }
    /* n * p +- 6 sigma: 2000 +- 267, 1000 +- 190 */
    CHECK(loss >= 1733 && loss <= 2267);
    CHECK(corrupt >= 810 && corrupt <= 1190);
    CHECK(dup >= 810 && dup <= 1190);
    CHECK(reorder >= 810 && reorder <= 1190);
    /* independent patterns coincide on about n * p^2 = 20 frames */
    CHECK(same < 100);
    NOTE("seed 12: %u loss, %u corrupt, %u dup, %u reorder of %u", loss,
         corrupt, dup, reorder, n);
}

/* ------------------------------------------------------------------ */
/* Which frames are RoCEv2                                             */
/* ------------------------------------------------------------------ */

TEST(roce_offsets)
{
    static const FrameSpec specs[] = {
        { .after_bth = 20 },
        { .vlan = true, .after_bth = 21 },
        { .ipv6 = true, .after_bth = 36 },
        { .vlan = true, .ipv6 = true, .after_bth = 1, .eth_pad = 7 },
        { .ip_opt_words = 10, .after_bth = 3, .eth_pad = 1 },
        { .frag = IPV4_DF, .after_bth = 4, .no_csum = true },
    };
    TestFrame t;
    size_t i, u, e;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        build_frame(&specs[i], &t);
        if (CHECK(roce(&t, &u, &e))) {
            CHECK_EQ(u, t.udp);
            CHECK_EQ(e, t.end);
        }
        free_frame(&t);
    }
}

/* Frames of 0 to 60 bytes: the minimal RoCEv2 frames and everything cut */
TEST(runts_every_length_to_60)
{
    static const FrameSpec specs[] = {
        { .after_bth = 1 },                 /* 55 bytes */
        { .vlan = true, .after_bth = 1 },   /* 59 bytes */
        { .after_bth = 2 },
        { .vlan = true, .after_bth = 2 },
        { .ipv6 = true, .after_bth = 1 },   /* 75 bytes: all cut */
        { .ip_opt_words = 1, .after_bth = 1 },
    };
    uint8_t buf[128], *out;
    TestFrame t, r;
    size_t i, len, u, e;
    unsigned int k;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        build_frame(&specs[i], &t);
        memset(buf, 0, sizeof(buf));
        memcpy(buf, t.data, t.len);
        for (len = 0; len <= 60; len++) {
            r = t;
            r.data = heap_copy(buf, len);
            r.len = len;
            if (len < t.len) {
                if (!check_not_roce(r.data, len)) {
                    NOTE("spec %zu cut to %zu bytes", i, len);
                }
            } else if (CHECK(roce(&r, &u, &e)) && CHECK_EQ(e, t.end)) {
                /* zero Ethernet padding up to the length */
                check_every_bit(&r);
            }
            free(r.data);
        }
        free_frame(&t);
    }

    /* random bytes, with the fields that lead to the UDP header forced */
    for (k = 0; k < 20000; k++) {
        len = k % 61;
        for (i = 0; i < len; i++) {
            buf[i] = test_byte();
        }
        if (len >= 14) {
            put16(buf + 12, k & 1 ? 0x86dd : k & 2 ? 0x8100 : 0x0800);
        }
        if (len >= 18 && (k & 3) == 2) {
            put16(buf + 16, k & 4 ? 0x86dd : 0x0800);
        }
        r.data = heap_copy(buf, len);
        r.len = len;
        if (ordma_wire_roce(r.data, len, &u, &e)) {
            CHECK(u + UDP_HLEN + BTH_LEN < e && e <= len);
        }
        out = malloc(len);
        ordma_wire_corrupt(r.data, len, test_byte(), out);
        free(out);
        free(r.data);
    }
}

TEST(not_roce_other_udp_and_protocols)
{
    static const FrameSpec specs[] = {
        { .after_bth = 8, .dport = 4790 },
        { .after_bth = 8, .dport = 4792 },
        { .after_bth = 8, .dport = 53 },
        { .ipv6 = true, .after_bth = 8, .dport = 4790 },
        { .after_bth = 8, .ip_proto = 6 },              /* TCP */
        { .ipv6 = true, .after_bth = 8, .ip_proto = 6 },
        { .ipv6 = true, .after_bth = 8, .ip_proto = 44 },   /* fragment */
        { .after_bth = 8, .ethertype = 0x0806 },        /* ARP */
        { .after_bth = 8, .ethertype = 0x88a8 },        /* 802.1ad */
        { .vlan = true, .after_bth = 8, .ethertype = 0x8100 },  /* QinQ */
        { .ipv6 = true, .after_bth = 8, .ethertype = 0x0800 },
        { .after_bth = 8, .ethertype = 0x86dd },
    };
    TestFrame t;
    size_t i;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        build_frame(&specs[i], &t);
        if (!check_not_roce(t.data, t.len)) {
            NOTE("spec %zu", i);
        }
        free_frame(&t);
    }
    /* RoCEv2's port as the source only */
    build_frame(&(FrameSpec){ .after_bth = 8, .dport = 1234 }, &t);
    put16(t.data + t.udp, ROCE_PORT);
    check_not_roce(t.data, t.len);
    free_frame(&t);
}

TEST(not_roce_ipv4_fragments)
{
    static const uint16_t frag[] = {
        IPV4_MF, IPV4_MF | IPV4_DF, 1, 0x1fff, IPV4_MF | 1, 185,
    };
    TestFrame t;
    size_t i;

    for (i = 0; i < sizeof(frag) / sizeof(frag[0]); i++) {
        build_frame(&(FrameSpec){ .after_bth = 40, .frag = frag[i] }, &t);
        if (!check_not_roce(t.data, t.len)) {
            NOTE("flags and offset 0x%04x", frag[i]);
        }
        free_frame(&t);
    }
    build_frame(&(FrameSpec){ .after_bth = 40, .frag = IPV4_DF }, &t);
    CHECK(roce(&t, NULL, NULL));
    free_frame(&t);
}

/* IPv4 header lengths 0 to 60 bytes, options filling the frame or past */
TEST(ipv4_header_length)
{
    TestFrame t;
    unsigned int ihl, words;

    for (words = 0; words <= 10; words++) {
        build_frame(&(FrameSpec){ .ip_opt_words = words,
                                  .after_bth = 5 + words }, &t);
        if (CHECK(roce(&t, NULL, NULL))) {
            check_every_bit(&t);
        }
        free_frame(&t);
    }
    /*
     * A 41-byte packet holds 20 bytes of header and the shortest
     * datagram that can be corrupted: any other header length leaves no
     * room for it, or is below the minimum.
     */
    build_frame(&(FrameSpec){ .after_bth = 1 }, &t);
    for (ihl = 0; ihl < 16; ihl++) {
        t.data[t.l3] = 0x40 | ihl;
        if (ihl == 5) {
            CHECK(roce(&t, NULL, NULL));
        } else if (!check_not_roce(t.data, t.len)) {
            NOTE("IHL %u", ihl);
        }
    }
    free_frame(&t);
}

/* The datagram must lie inside the IP packet, the packet in the frame */
TEST(length_fields_against_the_frame)
{
    TestFrame t;
    size_t u, e;
    uint16_t l;

    /* UDP length: header, BTH and at least one byte, within the packet */
    build_frame(&(FrameSpec){ .after_bth = 30, .eth_pad = 40 }, &t);
    for (l = 0; l <= UDP_HLEN + BTH_LEN; l++) {
        put16(t.data + t.udp + 4, l);
        check_not_roce(t.data, t.len);
    }
    put16(t.data + t.udp + 4, UDP_HLEN + BTH_LEN + 30 + 1);
    check_not_roce(t.data, t.len);          /* past the IP packet */
    put16(t.data + t.udp + 4, 0xffff);
    check_not_roce(t.data, t.len);
    /* a datagram shorter than the packet: bits flip inside it only */
    l = UDP_HLEN + BTH_LEN + 1;
    put16(t.data + t.udp + 4, l);
    put16(t.data + t.udp + 6, 0);
    put16(t.data + t.udp + 6, ~csum_fold(udp_sum(t.data, t.l3, false, t.udp,
                                                 l)));
    if (CHECK(roce(&t, &u, &e)) && CHECK_EQ(e, t.udp + l)) {
        t.end = e;
        check_every_bit(&t);
    }
    free_frame(&t);

    /* IPv4 total length: below the header, past the frame */
    build_frame(&(FrameSpec){ .after_bth = 30, .eth_pad = 3 }, &t);
    put16(t.data + t.l3 + 2, 19);
    check_not_roce(t.data, t.len);
    put16(t.data + t.l3 + 2, t.len - t.l3 + 1);
    check_not_roce(t.data, t.len);
    put16(t.data + t.l3 + 2, IPV4_HLEN + UDP_HLEN + BTH_LEN + 29);
    check_not_roce(t.data, t.len);          /* shorter than the datagram */
    put16(t.data + t.l3 + 2, t.len - t.l3); /* padding in the packet */
    CHECK(roce(&t, NULL, NULL));
    free_frame(&t);

    /* IPv6 payload length past the frame, or short of the datagram */
    build_frame(&(FrameSpec){ .ipv6 = true, .after_bth = 30 }, &t);
    put16(t.data + t.l3 + 4, UDP_HLEN + BTH_LEN + 31);
    check_not_roce(t.data, t.len);
    put16(t.data + t.l3 + 4, UDP_HLEN + BTH_LEN + 29);
    check_not_roce(t.data, t.len);
    put16(t.data + t.l3 + 4, 0xffff);
    check_not_roce(t.data, t.len);
    free_frame(&t);
}

/* ------------------------------------------------------------------ */
/* Corruption                                                          */
/* ------------------------------------------------------------------ */

/*
 * The over-read: a datagram of odd length that ends where the frame
 * ends.  Its last byte's 16-bit word is half outside the frame; the
 * checksum counts that half as zero.
 */
TEST(corrupt_odd_datagram_at_frame_end)
{
    static const size_t after_bth[] = { 1, 3, 5, 17, 37, 1001 };
    TestFrame t;
    size_t i;
    unsigned int v;

    for (v = 0; v < 4; v++) {
        for (i = 0; i < sizeof(after_bth) / sizeof(after_bth[0]); i++) {
            build_frame(&(FrameSpec){ .vlan = v & 1, .ipv6 = v & 2,
                                      .after_bth = after_bth[i] }, &t);
            CHECK((t.end - t.udp) % 2 == 1 && t.end == t.len);
            check_every_bit(&t);
            free_frame(&t);
        }
    }
}

/* Odd and even datagrams followed by Ethernet padding the bit never hits */
TEST(corrupt_datagram_before_ethernet_padding)
{
    TestFrame t;
    size_t n, pad;
    unsigned int v;

    for (v = 0; v < 4; v++) {
        for (n = 1; n <= 9; n++) {
            for (pad = 1; pad <= 6; pad += 5) {
                build_frame(&(FrameSpec){ .vlan = v & 1, .ipv6 = v & 2,
                                          .after_bth = n, .eth_pad = pad },
                            &t);
                check_every_bit(&t);
                free_frame(&t);
            }
        }
    }
}

TEST(corrupt_every_bit_ipv4_ipv6_vlan)
{
    TestFrame t;
    size_t n;
    unsigned int v;

    for (v = 0; v < 8; v++) {
        for (n = 1; n <= 64; n += 9) {
            build_frame(&(FrameSpec){ .vlan = v & 1, .ipv6 = v & 2,
                                      .no_csum = v & 4, .after_bth = n },
                        &t);
            check_every_bit(&t);
            free_frame(&t);
        }
    }
}

/* The bit number wraps around; the frame may be corrupted in place */
TEST(corrupt_bit_modulo_and_in_place)
{
    TestFrame t;
    uint64_t n, b;
    unsigned int k;

    build_frame(&(FrameSpec){ .after_bth = 23 }, &t);
    n = corrupt_bits(&t);
    for (k = 0; k < 1000; k++) {
        b = ordma_wire_rand(&test_rng);
        if (!check_corrupt(&t, b, false) || !check_corrupt(&t, b, true)) {
            break;
        }
    }
    check_corrupt(&t, UINT64_MAX, false);
    check_corrupt(&t, n, true);
    check_corrupt(&t, n * 1000 + 7, false);
    free_frame(&t);
}

/* Jumbo frames, and the longest datagrams IPv4 and IPv6 can carry */
TEST(corrupt_jumbo_frames)
{
    static const FrameSpec specs[] = {
        { .after_bth = 9000 - IPV4_HLEN - UDP_HLEN - BTH_LEN },
        { .vlan = true, .ipv6 = true, .after_bth = 9001 },
        { .after_bth = 9001, .eth_pad = 1 },
        { .ip_opt_words = 10, .after_bth = 65535 - 60 - UDP_HLEN - BTH_LEN },
        { .ipv6 = true, .after_bth = 65535 - UDP_HLEN - BTH_LEN },
    };
    TestFrame t;
    uint64_t b, n;
    size_t i;

    for (i = 0; i < sizeof(specs) / sizeof(specs[0]); i++) {
        build_frame(&specs[i], &t);
        if (!CHECK(t.len >= 9000 && roce(&t, NULL, NULL))) {
            free_frame(&t);
            continue;
        }
        n = corrupt_bits(&t);
        /* the first and last bytes whole, a stride through the rest */
        for (b = 0; b < n; b += b < 128 || b >= n - 128 ? 1 : 997) {
            if (!check_corrupt(&t, b, b % 2)) {
                NOTE("spec %zu", i);
                break;
            }
        }
        free_frame(&t);
    }
}

/*
 * Checksums whose update crosses the folds: every value of the checksum
 * field, kept right by adjusting a payload word, with the last byte of an
 * odd datagram flipped.
 */
TEST(corrupt_checksum_edges)
{
    TestFrame t;
    uint32_t want;
    uint64_t sum;
    uint16_t c;

    build_frame(&(FrameSpec){ .after_bth = 5 }, &t);
    for (want = 1; want <= 0xffff; want++) {
        /* choose the checksum, then make the word after the BTH fit it */
        put16(t.data + t.udp + 6, want);
        put16(t.data + t.udp + 20, 0);
        sum = udp_sum(t.data, t.l3, false, t.udp, t.end - t.udp);
        c = ~csum_fold(sum);
        put16(t.data + t.udp + 20, c);
        if (!CHECK(udp_csum_ok(&t, t.data))) {
            break;
        }
        if (!check_corrupt(&t, 4 * 8 + want % 8, false) ||
            !check_corrupt(&t, want % 8, false)) {
            NOTE("checksum 0x%04x", want);
            break;
        }
    }
    free_frame(&t);
}

/* A PAUSE frame as 802.3 Annex 31B lays it out, padded, not RoCE */
TEST(pause_frame_layout)
{
    static const uint8_t src[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };
    static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };
    /* on the heap, so that a write past the frame shows under ASan */
    uint8_t *f = malloc(ORDMA_PAUSE_FRAME_LEN);
    size_t i, len;

    memset(f, 0xee, ORDMA_PAUSE_FRAME_LEN);
    len = ordma_wire_pause_frame(f, src, 0xabcd);
    CHECK(len == 60);
    CHECK(!memcmp(f, dst, 6));
    CHECK(!memcmp(f + 6, src, 6));
    CHECK(get16(f + 12) == 0x8808);
    CHECK(get16(f + 14) == 0x0001);
    CHECK(get16(f + 16) == 0xabcd);
    for (i = 18; i < len; i++) {
        if (!CHECK(f[i] == 0)) {
            break;
        }
    }
    CHECK(check_not_roce(f, len));
    ordma_wire_pause_frame(f, src, 0);
    CHECK(get16(f + 16) == 0);
    free(f);
}
