// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The iWARP wire format above TCP (fw_iw_wire.h): CRC32c, MPA request
 * and reply, FPDU framing and the DDP/RDMAP headers.
 */
#include <stdatomic.h>
#include <string.h>

#include "fw_iw_wire.h"
#include "fw_roce_wire.h"

/*
 * CRC32c, byte at a time from a table made on first use.  A caller that
 * finds the table being filled by another thread computes bitwise.
 */
#define FW_CRC32C_POLY		0x82f63b78u

static uint32_t fw_crc32c_table[256];

enum { FW_CRC32C_UNSET, FW_CRC32C_FILLING, FW_CRC32C_READY };
static atomic_int fw_crc32c_state = FW_CRC32C_UNSET;

static uint32_t fw_crc32c_bitwise_byte(uint32_t crc)
{
	int bit;

	for (bit = 0; bit < 8; bit++)
		crc = (crc >> 1) ^ (FW_CRC32C_POLY & (0u - (crc & 1u)));
	return crc;
}

static bool fw_crc32c_ready(void)
{
	int expect = FW_CRC32C_UNSET;
	uint32_t n;

	if (atomic_load_explicit(&fw_crc32c_state, memory_order_acquire) ==
	    FW_CRC32C_READY)
		return true;
	if (!atomic_compare_exchange_strong(&fw_crc32c_state, &expect,
					    FW_CRC32C_FILLING))
		return false;
	for (n = 0; n < 256; n++)
		fw_crc32c_table[n] = fw_crc32c_bitwise_byte(n);
	atomic_store_explicit(&fw_crc32c_state, FW_CRC32C_READY,
			      memory_order_release);
	return true;
}

uint32_t fw_crc32c(uint32_t crc, const void *buf, size_t len)
{
	const uint8_t *p = buf;
	bool table = fw_crc32c_ready();

	crc = ~crc;
	while (len--) {
		uint32_t idx = (crc ^ *p++) & 0xff;

		crc = (crc >> 8) ^ (table ? fw_crc32c_table[idx] :
				    fw_crc32c_bitwise_byte(idx));
	}
	return ~crc;
}

/* ------------------------------------------------------------------ */
/* MPA request and reply                                               */
/* ------------------------------------------------------------------ */

static const uint8_t fw_mpa_keys[2][FW_MPA_KEY_LEN] = {
	[FW_MPA_REQUEST] = "MPA ID Req Frame",
	[FW_MPA_REPLY] = "MPA ID Rep Frame",
};

size_t fw_mpa_msg_len(const uint8_t *buf, size_t len)
{
	if (len < FW_MPA_HDR_LEN)
		return 0;
	return FW_MPA_HDR_LEN + fw_wire_get16(buf + 18);
}

static bool fw_mpa_enhanced(uint8_t flags, uint8_t revision)
{
	return revision == 2 && (flags & FW_MPA_FLAG_ENHANCED);
}

enum fw_mpa_parse fw_mpa_parse(const uint8_t *buf, size_t len,
			       enum fw_mpa_kind kind, struct fw_mpa_msg *m)
{
	uint16_t pd_len;

	if (len < FW_MPA_HDR_LEN)
		return FW_MPA_SHORT;
	if (memcmp(buf, fw_mpa_keys[kind], FW_MPA_KEY_LEN))
		return FW_MPA_BAD_KEY;
	memset(m, 0, sizeof(*m));
	m->kind = kind;
	m->flags = buf[16];
	m->revision = buf[17];
	pd_len = fw_wire_get16(buf + 18);
	if (!m->revision || m->revision > 2)
		return FW_MPA_BAD_REVISION;
	if (pd_len > FW_MPA_MAX_PD)
		return FW_MPA_BAD_PD_LEN;
	if (len < FW_MPA_HDR_LEN + (size_t)pd_len)
		return FW_MPA_SHORT;
	m->pd = buf + FW_MPA_HDR_LEN;
	m->pd_len = pd_len;
	if (fw_mpa_enhanced(m->flags, m->revision)) {
		if (pd_len < FW_MPA_V2_DATA_LEN)
			return FW_MPA_BAD_PD_LEN;
		m->ird = fw_wire_get16(m->pd);
		m->ord = fw_wire_get16(m->pd + 2);
		m->pd += FW_MPA_V2_DATA_LEN;
		m->pd_len -= FW_MPA_V2_DATA_LEN;
	}
	return FW_MPA_OK;
}

size_t fw_mpa_build(uint8_t *out, const struct fw_mpa_msg *m)
{
	bool enhanced = fw_mpa_enhanced(m->flags, m->revision);
	size_t words = enhanced ? FW_MPA_V2_DATA_LEN : 0;
	uint8_t *pd = out + FW_MPA_HDR_LEN;

	memcpy(out, fw_mpa_keys[m->kind], FW_MPA_KEY_LEN);
	out[16] = m->flags;
	out[17] = m->revision;
	fw_wire_put16(out + 18, (uint16_t)(words + m->pd_len));
	if (enhanced) {
		fw_wire_put16(pd, m->ird);
		fw_wire_put16(pd + 2, m->ord);
	}
	if (m->pd_len)
		memcpy(pd + words, m->pd, m->pd_len);
	return FW_MPA_HDR_LEN + words + m->pd_len;
}

/* ------------------------------------------------------------------ */
/* FPDUs                                                               */
/* ------------------------------------------------------------------ */

/*
 * The CRC goes on the wire least significant byte first, as iSCSI's
 * digests do: Linux siw stores what its crc32c hash writes (little
 * endian) and compares those bytes.
 */
static void fw_mpa_put_crc(uint8_t *p, uint32_t crc)
{
	p[0] = (uint8_t)crc;
	p[1] = (uint8_t)(crc >> 8);
	p[2] = (uint8_t)(crc >> 16);
	p[3] = (uint8_t)(crc >> 24);
}

static uint32_t fw_mpa_get_crc(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

size_t fw_fpdu_seal(uint8_t *out, size_t ulpdu_len)
{
	size_t len = fw_fpdu_len(ulpdu_len);
	size_t crc_at = len - FW_MPA_CRC_LEN;

	fw_wire_put16(out, (uint16_t)ulpdu_len);
	memset(out + FW_MPA_LEN_FIELD + ulpdu_len, 0,
	       crc_at - FW_MPA_LEN_FIELD - ulpdu_len);
	fw_mpa_put_crc(out + crc_at, fw_crc32c(0, out, crc_at));
	return len;
}

size_t fw_iw_build_rtr_write(uint8_t *out)
{
	uint8_t *ddp = out + FW_MPA_LEN_FIELD;

	ddp[0] = FW_DDP_TAGGED | FW_DDP_LAST | FW_DDP_VERSION;
	ddp[1] = FW_RDMAP_VERSION << 6 | FW_RDMAP_WRITE;
	fw_wire_put32(ddp + 2, FW_IW_RTR_STAG);
	fw_wire_put64(ddp + 6, 0);
	return fw_fpdu_seal(out, FW_DDP_TAGGED_HLEN);
}

bool fw_ddp_parse(const uint8_t *ulpdu, size_t len, struct fw_ddp_hdr *h)
{
	if (len < 2)
		return false;
	memset(h, 0, sizeof(*h));
	h->tagged = ulpdu[0] & FW_DDP_TAGGED;
	h->last = ulpdu[0] & FW_DDP_LAST;
	h->ddp_version = ulpdu[0] & 0x03;
	h->rdmap_version = ulpdu[1] >> 6;
	h->opcode = ulpdu[1] & 0x0f;
	if (h->tagged) {
		if (len < FW_DDP_TAGGED_HLEN)
			return false;
		h->stag = fw_wire_get32(ulpdu + 2);
		h->to = fw_wire_get64(ulpdu + 6);
		return true;
	}
	if (len < FW_DDP_UNTAGGED_HLEN)
		return false;
	h->stag = fw_wire_get32(ulpdu + 2);
	h->qn = fw_wire_get32(ulpdu + 6);
	h->msn = fw_wire_get32(ulpdu + 10);
	h->mo = fw_wire_get32(ulpdu + 14);
	return true;
}

bool fw_fpdu_crc_ok(const uint8_t *fpdu, size_t len)
{
	size_t ulpdu_len;

	if (len < FW_MPA_LEN_FIELD + FW_MPA_CRC_LEN)
		return false;
	ulpdu_len = fw_wire_get16(fpdu);
	if (fw_fpdu_len(ulpdu_len) != len)
		return false;
	return fw_mpa_get_crc(fpdu + len - FW_MPA_CRC_LEN) ==
	       fw_crc32c(0, fpdu, len - FW_MPA_CRC_LEN);
}

size_t fw_mpa_mulpdu(size_t mss)
{
	size_t room;

	/* length field and ULPDU padded to 4, then the CRC */
	if (mss < FW_MPA_LEN_FIELD + FW_MPA_CRC_LEN + FW_DDP_UNTAGGED_HLEN + 4)
		return 0;
	room = (mss - FW_MPA_CRC_LEN) / 4 * 4 - FW_MPA_LEN_FIELD;
	return room > 0xffff ? 0xffff : room;
}

size_t fw_ddp_build(uint8_t *ulpdu, const struct fw_ddp_hdr *h)
{
	ulpdu[0] = (uint8_t)((h->tagged ? FW_DDP_TAGGED : 0) |
			     (h->last ? FW_DDP_LAST : 0) | FW_DDP_VERSION);
	ulpdu[1] = (uint8_t)(FW_RDMAP_VERSION << 6 | (h->opcode & 0x0f));
	fw_wire_put32(ulpdu + 2, h->stag);
	if (h->tagged) {
		fw_wire_put64(ulpdu + 6, h->to);
		return FW_DDP_TAGGED_HLEN;
	}
	fw_wire_put32(ulpdu + 6, h->qn);
	fw_wire_put32(ulpdu + 10, h->msn);
	fw_wire_put32(ulpdu + 14, h->mo);
	return FW_DDP_UNTAGGED_HLEN;
}

void fw_rdmap_rreq_put(uint8_t *p, const struct fw_rdmap_rreq *r)
{
	fw_wire_put32(p, r->sink_stag);
	fw_wire_put64(p + 4, r->sink_to);
	fw_wire_put32(p + 12, r->size);
	fw_wire_put32(p + 16, r->src_stag);
	fw_wire_put64(p + 20, r->src_to);
}

void fw_rdmap_rreq_get(const uint8_t *p, struct fw_rdmap_rreq *r)
{
	r->sink_stag = fw_wire_get32(p);
	r->sink_to = fw_wire_get64(p + 4);
	r->size = fw_wire_get32(p + 12);
	r->src_stag = fw_wire_get32(p + 16);
	r->src_to = fw_wire_get64(p + 20);
}

size_t fw_term_build(uint8_t *ulpdu, const struct fw_term *t)
{
	struct fw_ddp_hdr h = {
		.last = true,
		.opcode = FW_RDMAP_TERMINATE,
		.qn = FW_RDMAP_QN_TERMINATE,
		.msn = 1,
	};
	size_t len = fw_ddp_build(ulpdu, &h);
	uint8_t *p = ulpdu + len;

	p[0] = (uint8_t)((t->layer & 0x0f) << 4 | (t->etype & 0x0f));
	p[1] = t->ecode;
	p[2] = t->flags & (FW_TERM_FLAG_M | FW_TERM_FLAG_D | FW_TERM_FLAG_R);
	p[3] = 0;
	len += FW_TERM_CTRL_LEN;
	if (t->flags & FW_TERM_FLAG_M) {
		fw_wire_put16(ulpdu + len, t->seg_len);
		len += 2;
	}
	if ((t->flags & (FW_TERM_FLAG_D | FW_TERM_FLAG_R)) && t->hdr_len) {
		memcpy(ulpdu + len, t->hdr, t->hdr_len);
		len += t->hdr_len;
	}
	return len;
}

bool fw_term_parse(const uint8_t *ulpdu, size_t len, struct fw_term *t)
{
	const uint8_t *p = ulpdu + FW_DDP_UNTAGGED_HLEN;

	memset(t, 0, sizeof(*t));
	if (len < FW_DDP_UNTAGGED_HLEN + FW_TERM_CTRL_LEN)
		return false;
	t->layer = p[0] >> 4;
	t->etype = p[0] & 0x0f;
	t->ecode = p[1];
	t->flags = p[2] & (FW_TERM_FLAG_M | FW_TERM_FLAG_D | FW_TERM_FLAG_R);
	return true;
}
