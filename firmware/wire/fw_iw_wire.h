/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The iWARP wire format above TCP: MPA (RFC 5044, enhanced connection
 * establishment of RFC 6581), its FPDU framing with CRC32c, and the DDP
 * (RFC 5041) and RDMAP (RFC 5040) headers an FPDU starts with.  Fields
 * are big endian on the wire, but for the FPDU's CRC, which goes least
 * significant byte first (as Linux siw and iSCSI send it).
 */
#ifndef ORDMA_FW_IW_WIRE_H
#define ORDMA_FW_IW_WIRE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* ------------------------------------------------------------------ */
/* CRC32c (Castagnoli, reflected 0x82f63b78), as iSCSI and MPA use it  */
/* ------------------------------------------------------------------ */

/* Continue crc (start with 0) over len bytes */
uint32_t fw_crc32c(uint32_t crc, const void *buf, size_t len);

/* ------------------------------------------------------------------ */
/* MPA request and reply                                               */
/* ------------------------------------------------------------------ */

#define FW_MPA_KEY_LEN		16
#define FW_MPA_HDR_LEN		20	/* key, bits and revision, pd length */
#define FW_MPA_MAX_PD		512	/* RFC 5044: private data at most */
#define FW_MPA_V2_DATA_LEN	4	/* IRD and ORD words (RFC 6581) */

#define FW_MPA_FLAG_MARKERS	0x80	/* the high byte of the bits field */
#define FW_MPA_FLAG_CRC		0x40
#define FW_MPA_FLAG_REJECT	0x20
#define FW_MPA_FLAG_ENHANCED	0x10

/* The IRD and ORD words of enhanced connection establishment */
#define FW_MPA_V2_VALUE		0x3fff	/* IRD/ORD; 0x3fff: no value */
#define FW_MPA_V2_PEER2PEER	0x8000	/* IRD word: an RTR follows */
#define FW_MPA_V2_RTR_ZERO_SEND	0x4000	/* IRD word */
#define FW_MPA_V2_RTR_WRITE	0x8000	/* ORD word: zero-length Write */
#define FW_MPA_V2_RTR_READ	0x4000	/* ORD word: zero-length Read */

enum fw_mpa_kind {
	FW_MPA_REQUEST,
	FW_MPA_REPLY,
};

struct fw_mpa_msg {
	enum fw_mpa_kind kind;
	uint8_t flags;			/* FW_MPA_FLAG_* */
	uint8_t revision;		/* 1 or 2 */
	/* enhanced (revision 2 with FW_MPA_FLAG_ENHANCED) only */
	uint16_t ird, ord;		/* the words as sent */
	const uint8_t *pd;		/* ULP private data (after the words) */
	uint16_t pd_len;
};

/* Why a received MPA message is not acceptable */
enum fw_mpa_parse {
	FW_MPA_OK,
	FW_MPA_SHORT,			/* fewer bytes than the header says:
					 * wait for more
					 */
	FW_MPA_BAD_KEY,			/* not the key of the kind expected */
	FW_MPA_BAD_REVISION,		/* 0, or above 2 */
	FW_MPA_BAD_PD_LEN,		/* over 512, or under the 4 words */
};

/* Bytes of the whole message (header and private data) once the
 * header's 20 bytes are in buf; 0 before that
 */
size_t fw_mpa_msg_len(const uint8_t *buf, size_t len);
enum fw_mpa_parse fw_mpa_parse(const uint8_t *buf, size_t len,
			       enum fw_mpa_kind kind, struct fw_mpa_msg *m);
/* Writes m (the words included when enhanced) to out, which holds
 * FW_MPA_HDR_LEN + FW_MPA_V2_DATA_LEN + m->pd_len bytes; the length
 */
size_t fw_mpa_build(uint8_t *out, const struct fw_mpa_msg *m);

/* ------------------------------------------------------------------ */
/* FPDUs, DDP and RDMAP headers                                        */
/* ------------------------------------------------------------------ */

#define FW_MPA_LEN_FIELD	2	/* ULPDU_Length */
#define FW_MPA_CRC_LEN		4
/* Bytes on the wire of an FPDU carrying ulpdu_len bytes of DDP segment */
static inline size_t fw_fpdu_len(size_t ulpdu_len)
{
	return (FW_MPA_LEN_FIELD + ulpdu_len + 3) / 4 * 4 + FW_MPA_CRC_LEN;
}

#define FW_DDP_TAGGED		0x80	/* first byte of the control field */
#define FW_DDP_LAST		0x40
#define FW_DDP_VERSION		1
#define FW_RDMAP_VERSION	1
#define FW_DDP_TAGGED_HLEN	14	/* control, STag, TO */
#define FW_DDP_UNTAGGED_HLEN	18	/* control, reserved, QN, MSN, MO */

enum fw_rdmap_opcode {
	FW_RDMAP_WRITE		= 0x0,
	FW_RDMAP_READ_REQ	= 0x1,
	FW_RDMAP_READ_RESP	= 0x2,
	FW_RDMAP_SEND		= 0x3,
	FW_RDMAP_SEND_INV	= 0x4,
	FW_RDMAP_SEND_SE	= 0x5,
	FW_RDMAP_SEND_SE_INV	= 0x6,
	FW_RDMAP_TERMINATE	= 0x7,
};

/* The STag siw and ORDMA send in a zero-length RDMA Write RTR */
#define FW_IW_RTR_STAG		1

/*
 * Builds the FPDU of a zero-length RDMA Write (tagged, last, STag
 * FW_IW_RTR_STAG, TO 0), the RTR of enhanced establishment; out holds
 * fw_fpdu_len(FW_DDP_TAGGED_HLEN) bytes.  The length.
 */
size_t fw_iw_build_rtr_write(uint8_t *out);

struct fw_ddp_hdr {
	bool tagged, last;
	uint8_t ddp_version, rdmap_version, opcode;
	uint32_t stag;			/* tagged: sink STag; untagged:
					 * invalidate STag
					 */
	uint64_t to;			/* tagged */
	uint32_t qn, msn, mo;		/* untagged */
};

/* Parses the DDP/RDMAP header at the start of a ULPDU; false if the
 * ULPDU is shorter than the header its T bit names
 */
bool fw_ddp_parse(const uint8_t *ulpdu, size_t len, struct fw_ddp_hdr *h);

/* true if fpdu (len bytes, a whole FPDU) carries a correct CRC */
bool fw_fpdu_crc_ok(const uint8_t *fpdu, size_t len);

/*
 * Writes the DDP/RDMAP header h (T, L, the versions, opcode and the
 * fields of its kind) to ulpdu; its length, FW_DDP_TAGGED_HLEN or
 * FW_DDP_UNTAGGED_HLEN.
 */
size_t fw_ddp_build(uint8_t *ulpdu, const struct fw_ddp_hdr *h);
/*
 * Frames the ulpdu_len bytes of DDP segment at out + FW_MPA_LEN_FIELD
 * into an FPDU: length field, pad, CRC32c.  The FPDU's length.
 */
size_t fw_fpdu_seal(uint8_t *out, size_t ulpdu_len);
/*
 * The largest DDP segment an FPDU may carry so that the FPDU fits one
 * TCP segment of mss bytes (RFC 5044 MULPDU), at most the 16-bit length
 * field's 65535.
 */
size_t fw_mpa_mulpdu(size_t mss);

/* Untagged queue numbers (RFC 5040) */
enum fw_rdmap_qn {
	FW_RDMAP_QN_SEND	= 0,
	FW_RDMAP_QN_READ_REQ	= 1,
	FW_RDMAP_QN_TERMINATE	= 2,
};

/* RDMA Read Request after its untagged header: sink STag, sink TO,
 * size, source STag, source TO
 */
#define FW_RDMAP_RREQ_LEN	28

struct fw_rdmap_rreq {
	uint32_t sink_stag;
	uint64_t sink_to;
	uint32_t size;
	uint32_t src_stag;
	uint64_t src_to;
};

void fw_rdmap_rreq_put(uint8_t *p, const struct fw_rdmap_rreq *r);
void fw_rdmap_rreq_get(const uint8_t *p, struct fw_rdmap_rreq *r);

/*
 * Terminate (RFC 5040 section 4.8): after the untagged header (QN 2) a
 * 32-bit control word: layer (4 bits), error type (4), error code (8),
 * then the M, D and R flags; with M the 16-bit length of the offending
 * DDP segment (as its FPDU carried it) follows, with D its DDP header,
 * with R its RDMAP header (a Read Request's body).
 */
#define FW_TERM_CTRL_LEN	4
#define FW_TERM_FLAG_M		0x80	/* byte 2 of the control word */
#define FW_TERM_FLAG_D		0x40
#define FW_TERM_FLAG_R		0x20

enum fw_term_layer {
	FW_TERM_LAYER_RDMAP	= 0x0,
	FW_TERM_LAYER_DDP	= 0x1,
	FW_TERM_LAYER_LLP	= 0x2,	/* MPA */
};

/* Error types: RDMAP */
#define FW_TERM_RDMAP_CATASTROPHIC	0x0
#define FW_TERM_RDMAP_REMOTE_PROT	0x1
#define FW_TERM_RDMAP_REMOTE_OP		0x2
/* DDP */
#define FW_TERM_DDP_CATASTROPHIC	0x0
#define FW_TERM_DDP_TAGGED		0x1
#define FW_TERM_DDP_UNTAGGED		0x2
/* LLP: MPA */
#define FW_TERM_LLP_MPA			0x0

/* Error codes: RDMAP remote protection and remote operation */
#define FW_TERM_RDMAP_INV_STAG		0x00
#define FW_TERM_RDMAP_BOUNDS		0x01
#define FW_TERM_RDMAP_ACCESS		0x02
#define FW_TERM_RDMAP_NOT_ASSOC		0x03
#define FW_TERM_RDMAP_TO_WRAP		0x04
#define FW_TERM_RDMAP_VERSION		0x05
#define FW_TERM_RDMAP_OPCODE		0x06
#define FW_TERM_RDMAP_CANT_INVALIDATE	0x09
/* DDP tagged */
#define FW_TERM_DDP_T_INV_STAG		0x00
#define FW_TERM_DDP_T_BOUNDS		0x01
#define FW_TERM_DDP_T_NOT_ASSOC		0x02
#define FW_TERM_DDP_T_TO_WRAP		0x03
#define FW_TERM_DDP_T_VERSION		0x04
/* DDP untagged */
#define FW_TERM_DDP_U_INV_QN		0x01
#define FW_TERM_DDP_U_NO_BUF		0x02
#define FW_TERM_DDP_U_MSN_RANGE		0x03
#define FW_TERM_DDP_U_INV_MO		0x04
#define FW_TERM_DDP_U_TOO_LONG		0x05
#define FW_TERM_DDP_U_VERSION		0x06
/* MPA */
#define FW_TERM_MPA_CRC			0x02
#define FW_TERM_MPA_MARKER		0x03	/* FPDU start lost */

struct fw_term {
	uint8_t layer, etype, ecode;
	uint8_t flags;			/* FW_TERM_FLAG_* */
	uint16_t seg_len;		/* M */
	const uint8_t *hdr;		/* D and R: the headers */
	size_t hdr_len;
};

/* The Terminate's ULPDU (untagged header, control, what the flags
 * name) at ulpdu, which holds FW_DDP_UNTAGGED_HLEN + FW_TERM_CTRL_LEN +
 * 2 + t->hdr_len bytes; its length
 */
size_t fw_term_build(uint8_t *ulpdu, const struct fw_term *t);
/* A received Terminate's control word; false if the ULPDU is short */
bool fw_term_parse(const uint8_t *ulpdu, size_t len, struct fw_term *t);

#endif /* ORDMA_FW_IW_WIRE_H */
