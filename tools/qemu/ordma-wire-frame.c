/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * ORDMA device model: the cable's impairments frame by frame (see
 * ordma-wire-frame.h).  Any guest process can make the port send any
 * frame, so nothing here trusts a length field: every offset is checked
 * against the frame before it is read.
 */

/*
 * QEMU compiles every file of the device with its osdep.h first; the
 * host unit test builds this one alone, with plain C11 and libc.
 */
#ifdef ORDMA_WIRE_FRAME_HOST
#include <string.h>
#else
#include "qemu/osdep.h"
#endif

#include "ordma-wire-frame.h"

#define ORDMA_ETH_HLEN          14
#define ORDMA_VLAN_HLEN         4
#define ORDMA_ETH_VLAN          0x8100
#define ORDMA_ETH_IPV4          0x0800
#define ORDMA_ETH_IPV6          0x86dd
#define ORDMA_IPV4_HLEN         20
#define ORDMA_IPV4_FRAG         0x3fff  /* MF and the fragment offset */
#define ORDMA_IPV6_HLEN         40
#define ORDMA_IPPROTO_UDP       17
#define ORDMA_UDP_HLEN          8
#define ORDMA_ROCE_PORT         4791
#define ORDMA_BTH_LEN           12

#define ORDMA_ETH_MAC_CONTROL   0x8808
#define ORDMA_MAC_CONTROL_PAUSE 0x0001

static void ordma_wire_put16(uint8_t *p, uint16_t v)
{
    p[0] = v >> 8;
    p[1] = v & 0xff;
}

size_t ordma_wire_pause_frame(uint8_t *out, const uint8_t src[6],
                              uint16_t quanta)
{
    static const uint8_t dst[6] = { 0x01, 0x80, 0xc2, 0x00, 0x00, 0x01 };

    memset(out, 0, ORDMA_PAUSE_FRAME_LEN);
    memcpy(out, dst, sizeof(dst));
    memcpy(out + 6, src, 6);
    ordma_wire_put16(out + 12, ORDMA_ETH_MAC_CONTROL);
    ordma_wire_put16(out + ORDMA_ETH_HLEN, ORDMA_MAC_CONTROL_PAUSE);
    ordma_wire_put16(out + ORDMA_ETH_HLEN + 2, quanta);
    return ORDMA_PAUSE_FRAME_LEN;
}

/* splitmix64 (Steele, Lea, Flood 2014): small, fast, any seed will do */
uint64_t ordma_wire_rand(uint64_t *rng)
{
    uint64_t z = (*rng += 0x9e3779b97f4a7c15ULL);

    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

bool ordma_wire_chance(uint64_t r, uint32_t ppm)
{
    return ((r >> 32) * ORDMA_WIRE_PPM_MAX >> 32) < ppm;
}

void ordma_wire_draw(uint64_t *rng, const OrdmaWireRates *rates,
                     OrdmaWireDraw *d)
{
    uint64_t r_loss = ordma_wire_rand(rng);
    uint64_t r_corrupt = ordma_wire_rand(rng);
    uint64_t r_bit = ordma_wire_rand(rng);
    uint64_t r_dup = ordma_wire_rand(rng);
    uint64_t r_reorder = ordma_wire_rand(rng);

    d->loss = ordma_wire_chance(r_loss, rates->loss_ppm);
    d->corrupt = ordma_wire_chance(r_corrupt, rates->corrupt_ppm);
    d->bit = r_bit;
    d->dup = ordma_wire_chance(r_dup, rates->dup_ppm);
    d->reorder = ordma_wire_chance(r_reorder, rates->reorder_ppm);
}

static uint16_t ordma_wire_get16(const uint8_t *p)
{
    return p[0] << 8 | p[1];
}

bool ordma_wire_roce(const uint8_t *f, size_t len, size_t *udp, size_t *end)
{
    size_t l3 = ORDMA_ETH_HLEN, ihl, ip_end, u, l4_len;
    uint16_t type;

    if (len < ORDMA_ETH_HLEN) {
        return false;
    }
    type = ordma_wire_get16(f + 12);
    if (type == ORDMA_ETH_VLAN) {
        if (len < ORDMA_ETH_HLEN + ORDMA_VLAN_HLEN) {
            return false;
        }
        type = ordma_wire_get16(f + 16);
        l3 += ORDMA_VLAN_HLEN;
    }
    /* from here on len >= l3; bytes past ip_end are Ethernet padding */
    if (type == ORDMA_ETH_IPV4) {
        if (len - l3 < ORDMA_IPV4_HLEN || f[l3] >> 4 != 4) {
            return false;
        }
        ihl = (f[l3] & 0xf) * 4;
        ip_end = l3 + ordma_wire_get16(f + l3 + 2);
        if (ihl < ORDMA_IPV4_HLEN || ip_end < l3 + ihl || ip_end > len ||
            f[l3 + 9] != ORDMA_IPPROTO_UDP ||
            (ordma_wire_get16(f + l3 + 6) & ORDMA_IPV4_FRAG)) {
            return false;
        }
        u = l3 + ihl;
    } else if (type == ORDMA_ETH_IPV6) {
        /* RoCEv2 has no IPv6 extension headers */
        if (len - l3 < ORDMA_IPV6_HLEN || f[l3] >> 4 != 6 ||
            f[l3 + 6] != ORDMA_IPPROTO_UDP) {
            return false;
        }
        u = l3 + ORDMA_IPV6_HLEN;
        ip_end = u + ordma_wire_get16(f + l3 + 4);
        if (ip_end > len) {
            return false;
        }
    } else {
        return false;
    }
    if (ip_end - u < ORDMA_UDP_HLEN ||
        ordma_wire_get16(f + u + 2) != ORDMA_ROCE_PORT) {
        return false;
    }
    l4_len = ordma_wire_get16(f + u + 4);
    if (l4_len < ORDMA_UDP_HLEN + ORDMA_BTH_LEN + 1 || l4_len > ip_end - u) {
        return false;
    }
    *udp = u;
    *end = u + l4_len;
    return true;
}

bool ordma_wire_corrupt(const uint8_t *frame, size_t len, uint64_t bit,
                        uint8_t *out)
{
    size_t udp, end, start, off;
    unsigned int shift;
    uint16_t csum, old, new;
    uint32_t sum;

    if (!ordma_wire_roce(frame, len, &udp, &end)) {
        return false;
    }
    start = udp + ORDMA_UDP_HLEN + ORDMA_BTH_LEN;
    bit %= (uint64_t)(end - start) * 8;
    off = start + bit / 8;
    if (out != frame) {
        memcpy(out, frame, len);
    }

    /*
     * The checksum adds up 16-bit words from the UDP header on, and an
     * odd-length datagram counts as padded with a zero byte (RFC 768).
     * Only the flipped byte's half of its word changes: the other half,
     * which may be that padding and not in the frame at all, adds the
     * same to the old and the new word and stays out of the update.
     */
    shift = (off - udp) % 2 ? 0 : 8;
    old = out[off] << shift;
    out[off] ^= 1 << (bit % 8);
    new = out[off] << shift;

    /* RFC 1624: HC' = ~(~HC + ~m + m'); zero means "none" in UDP */
    csum = ordma_wire_get16(out + udp + 6);
    if (csum) {
        sum = (uint16_t)~csum + (uint16_t)~old + new;
        sum = (sum & 0xffff) + (sum >> 16);
        sum = (sum & 0xffff) + (sum >> 16);
        csum = ~sum;
        if (!csum) {
            csum = 0xffff;
        }
        out[udp + 6] = csum >> 8;
        out[udp + 7] = csum;
    }
    return true;
}
