// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* InfiniBand packets for the tests (ib_pkt.h) */
#include <string.h>

#include "fw_priv.h"
#include "ib_pkt.h"

size_t ib_ud_packet(uint8_t *buf, size_t cap, const struct ib_ud_pkt *p)
{
	struct fw_ib_frame f;
	struct fw_ib_hdrs h;

	memset(&h, 0, sizeof(h));
	h.vl = p->vl;
	h.sl = p->sl;
	h.dlid = p->dlid;
	h.slid = p->slid;
	h.xport.opcode = FW_ROCE_UD_SEND_ONLY;
	h.xport.pkey = FW_ROCE_DEFAULT_PKEY;
	h.xport.dest_qp = p->dest_qp;
	h.xport.psn = p->psn;
	h.xport.deth.qkey = p->qkey;
	h.xport.deth.src_qp = p->src_qp;
	if (fw_ib_frame_init(&f, buf, cap, &h, p->payload_len))
		return 0;
	memset(buf + f.payload_off, p->fill, p->payload_len);
	fw_ib_frame_seal(&f);
	return f.len;
}

void ib_revcrc(uint8_t *pkt, size_t len)
{
	uint16_t v = fw_ib_vcrc(pkt, len - 2);

	pkt[len - 2] = (uint8_t)v;
	pkt[len - 1] = (uint8_t)(v >> 8);
}
