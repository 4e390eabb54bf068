// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The RoCEv2 wire layer against Wireshark (tests/wire/tshark-interop.sh):
 *
 *   wire_pcap gen OUT.pcap          frames of every opcode, IPv4 and IPv6,
 *                                   with and without a VLAN tag, and one
 *                                   with a wrong ICRC at the end
 *   wire_pcap probe OUT.pcap        frames for a live rdma_rxe receiver,
 *                                   see cmd_probe()
 *   wire_pcap compare IN.pcap TSV by-opcode|all DROPS
 *                                   parse every frame of IN.pcap with
 *                                   fw_roce_parse() and compare what it
 *                                   finds with tshark's fields in TSV
 *                                   (columns: COLUMNS in the script),
 *                                   one result per opcode or for all;
 *                                   DROPS frames must fail to parse.
 *                                   Prints TAP lines without numbers.
 *
 * The pcap file format (libpcap 2.4, LINKTYPE_ETHERNET) is written and
 * read here directly.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "wire/fw_roce_wire.h"
#include "roce_codec.h"

#define MAX_FRAME	9100
#define MAX_FRAMES	4096
#define PCAP_MAGIC	0xa1b2c3d4u
#define PCAP_MAGIC_NS	0xa1b23c4du
#define LINKTYPE_ETHERNET 1

/* tshark -e columns, in the order tshark-interop.sh asks for them */
enum col {
	C_NUM, C_OPCODE, C_DESTQP, C_PSN, C_PAD, C_SE, C_MIG, C_ACKREQ,
	C_PKEY, C_ICRC, C_VA, C_RKEY, C_DMALEN, C_SYNDROME, C_MSN, C_QKEY,
	C_SRCQP, C_SWAP, C_CMP, C_ORIG, C_IMMDT, C_IETH, C_DATALEN,
	C_SPORT, C_DPORT, C_VLAN, NUM_COLS
};

static const char *const col_names[NUM_COLS] = {
	"frame.number", "bth.opcode", "bth.destqp", "bth.psn", "bth.padcnt",
	"bth.se", "bth.m", "bth.a", "bth.p_key", "invariant.crc",
	"reth.va", "reth.r_key", "reth.dmalen", "aeth.syndrome", "aeth.msn",
	"deth.q_key", "deth.srcqp", "atomiceth.swapdt", "atomiceth.cmpdt",
	"atomicacketh.origremdt", "immdt", "ieth", "data.len",
	"udp.srcport", "udp.dstport", "vlan.id",
};

/* FT_BYTES columns come as plain hex digits */
static bool col_is_bytes(int c)
{
	return c == C_IMMDT || c == C_IETH;
}

static void put_le16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
}

static void put_le32(uint8_t *p, uint32_t v)
{
	put_le16(p, (uint16_t)v);
	put_le16(p + 2, (uint16_t)(v >> 16));
}

static uint32_t get32(const uint8_t *p, bool swap)
{
	uint32_t v = (uint32_t)p[0] | (uint32_t)p[1] << 8 |
		     (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;

	return swap ? fw_wire_get32(p) : v;
}

static int pcap_write_header(FILE *f)
{
	uint8_t h[24];

	put_le32(h, PCAP_MAGIC);
	put_le16(h + 4, 2);
	put_le16(h + 6, 4);
	put_le32(h + 8, 0);		/* GMT */
	put_le32(h + 12, 0);		/* timestamp accuracy */
	put_le32(h + 16, 65535);	/* snap length */
	put_le32(h + 20, LINKTYPE_ETHERNET);
	return fwrite(h, sizeof(h), 1, f) == 1 ? 0 : -1;
}

static int pcap_write_frame(FILE *f, unsigned int n, const uint8_t *frame,
			    size_t len)
{
	uint8_t r[16];

	put_le32(r, 1700000000u + n);
	put_le32(r + 4, 0);
	put_le32(r + 8, (uint32_t)len);
	put_le32(r + 12, (uint32_t)len);
	if (fwrite(r, sizeof(r), 1, f) != 1 ||
	    fwrite(frame, len, 1, f) != 1)
		return -1;
	return 0;
}

struct frame {
	uint8_t *data;
	size_t len;
};

/* All frames of a pcap file, or -1 */
static int pcap_read(const char *path, struct frame *frames, size_t max,
		     size_t *count)
{
	FILE *f = fopen(path, "rb");
	uint8_t h[24], r[16];
	uint32_t magic, caplen;
	bool swap;
	size_t n = 0;

	if (!f)
		return -1;
	if (fread(h, sizeof(h), 1, f) != 1)
		goto bad;
	magic = get32(h, false);
	if (magic == PCAP_MAGIC || magic == PCAP_MAGIC_NS)
		swap = false;
	else if (fw_wire_get32(h) == PCAP_MAGIC ||
		 fw_wire_get32(h) == PCAP_MAGIC_NS)
		swap = true;
	else
		goto bad;
	if (get32(h + 20, swap) != LINKTYPE_ETHERNET)
		goto bad;
	while (n < max && fread(r, sizeof(r), 1, f) == 1) {
		caplen = get32(r + 8, swap);
		if (caplen > MAX_FRAME)
			goto bad;
		frames[n].data = malloc(caplen ? caplen : 1);
		frames[n].len = caplen;
		if (!frames[n].data ||
		    (caplen && fread(frames[n].data, caplen, 1, f) != 1))
			goto bad;
		n++;
	}
	fclose(f);
	*count = n;
	return 0;
bad:
	fclose(f);
	return -1;
}

/* ------------------------------------------------------------------ */
/* gen                                                                 */
/* ------------------------------------------------------------------ */

static const uint8_t opcodes[] = {
	0x00, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08, 0x09, 0x0a,
	0x0b, 0x0c, 0x0d, 0x0e, 0x0f, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16,
	0x17, 0x64, 0x65,
};

#define NUM_GEN_OPCODES	(sizeof(opcodes) / sizeof(opcodes[0]))

static void gen_hdrs(struct fw_roce_hdrs *h, unsigned int i, uint8_t opcode,
		     bool ipv6, bool vlan)
{
	static const uint8_t mac_a[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x01 };
	static const uint8_t mac_b[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x02 };
	static const uint8_t gid4_a[16] = { [10] = 0xff, 0xff, 192, 0, 2, 1 };
	static const uint8_t gid4_b[16] = { [10] = 0xff, 0xff, 192, 0, 2, 2 };
	static const uint8_t gid6_a[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 1 };
	static const uint8_t gid6_b[16] = { 0x20, 0x01, 0x0d, 0xb8, [15] = 2 };

	memset(h, 0, sizeof(*h));
	memcpy(h->dmac, mac_b, 6);
	memcpy(h->smac, mac_a, 6);
	h->vlan_id = vlan ? (uint16_t)(10 + i) : FW_ROCE_VLAN_NONE;
	h->vlan_prio = vlan ? 3 : 0;
	memcpy(h->sgid, ipv6 ? gid6_a : gid4_a, 16);
	memcpy(h->dgid, ipv6 ? gid6_b : gid4_b, 16);
	h->traffic_class = (uint8_t)(i * 4);
	h->flow_label = ipv6 ? 0x10000 + i : 0;
	h->hop_limit = 64;
	h->ip_id = (uint16_t)(0x100 + i);
	h->opcode = opcode;
	h->se = i & 1;
	h->mig = i & 2;
	h->ack_req = i & 4;
	h->pkey = i & 8 ? 0x8001 : FW_ROCE_DEFAULT_PKEY;
	h->src_qp = 0x40 + i;
	h->dest_qp = 0x10000 + i * 0x101;
	/* includes a PSN at the top of the 24-bit space */
	h->psn = i == 7 ? FW_ROCE_PSN_MASK : 1000 * i + 7;
	h->reth.va = 0x7f0000001000ULL + i * 0x1000;
	h->reth.rkey = 0x1000 + i;
	h->reth.dma_len = 13 + i;
	h->aeth.syndrome = (uint8_t[]){ 0x00, 0x1f, 0x2e, 0x60, 0x61, 0x62,
				       0x63, 0x64 }[i % 8];
	h->aeth.msn = 0x100000 + i;
	h->deth.qkey = 0x80000000u + i;
	h->deth.src_qp = 0x40 + i;
	h->imm = 0xdead0000u + i;
	h->inv_rkey = 0xbeef0000u + i;
	h->atomic.va = 0x7f0000002000ULL + i * 8;
	h->atomic.rkey = 0x2000 + i;
	h->atomic.swap_add = 0x0123456789abcdefULL + i;
	h->atomic.compare = 0xfedcba9876543210ULL - i;
	h->atomic_orig = 0x1111111111111111ULL * (i % 15 + 1);
}

static int cmd_gen(const char *path)
{
	uint8_t frame[MAX_FRAME], payload[256];
	const struct fw_roce_opcode_info *op;
	struct fw_roce_hdrs h;
	unsigned int i = 0, o, v, n = 0;
	size_t len, plen, k;
	FILE *f = fopen(path, "wb");

	if (!f || pcap_write_header(f))
		goto fail;
	for (o = 0; o < NUM_GEN_OPCODES; o++) {
		op = fw_roce_opcode_info(opcodes[o]);
		for (v = 0; v < 4; v++, i++) {
			gen_hdrs(&h, i, opcodes[o], v & 1, v & 2);
			plen = op->flags & FW_ROCE_HAS_PAYLOAD ? i % 64 + 1 : 0;
			for (k = 0; k < plen; k++)
				payload[k] = (uint8_t)(i + k);
			len = fw_roce_build(frame, sizeof(frame), &h, payload,
					    plen);
			if (!len || pcap_write_frame(f, ++n, frame, len))
				goto fail;
		}
	}
	/* the last one with a wrong ICRC: the parser drops it */
	gen_hdrs(&h, i, FW_ROCE_RC_SEND_ONLY, false, false);
	len = fw_roce_build(frame, sizeof(frame), &h, "bad icrc", 8);
	frame[len - 1] ^= 0xff;
	if (!len || pcap_write_frame(f, ++n, frame, len) || fclose(f))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "wire_pcap: cannot write %s: %s\n", path,
		strerror(errno));
	return 1;
}

/*
 * Frames for a Linux rdma_rxe receiver (vectors/rxe-accepts.sh): UD SENDs
 * to its QP1 (GSI, Q_Key 0x80010000), which rxe counts in rcvd_pkts only
 * after its ICRC check, from 52:54:00:12:34:01 192.0.2.1 / 2001:db8::1 to
 * 52:54:00:12:34:02 192.0.2.2 / 2001:db8::2.  Frame i's comment says
 * whether rxe must count it.
 */
static int cmd_probe(const char *path)
{
	static const struct {
		bool ipv6, zero_csum, imm, good;
		size_t len;
		const char *what;
	} probes[] = {
		{ false, false, false, true, 256, "IPv4 UD SEND Only" },
		{ false, false, true, true, 255, "IPv4 UD SEND Only Imm, pad 1" },
		{ true, false, false, true, 256, "IPv6, UDP checksum computed" },
		{ true, true, true, true, 253, "IPv6, UDP checksum 0, pad 3" },
		{ false, false, false, false, 256, "IPv4, ICRC wrong" },
		{ true, false, false, false, 256, "IPv6, UDP checksum wrong" },
		{ true, false, false, false, 252, "IPv6, ICRC wrong" },
	};
	uint8_t frame[MAX_FRAME], payload[256];
	struct fw_roce_frame fr;
	struct fw_roce_hdrs h;
	unsigned int i;
	size_t len;
	FILE *f = fopen(path, "wb");

	memset(payload, 0, sizeof(payload));	/* not a MAD: ib_mad drops it */
	if (!f || pcap_write_header(f))
		goto fail;
	for (i = 0; i < sizeof(probes) / sizeof(probes[0]); i++) {
		gen_hdrs(&h, i, probes[i].imm ? FW_ROCE_UD_SEND_ONLY_IMM :
			 FW_ROCE_UD_SEND_ONLY, probes[i].ipv6, false);
		h.traffic_class = 0;
		h.flow_label = 0;
		h.pkey = FW_ROCE_DEFAULT_PKEY;
		h.dest_qp = 1;
		h.deth.qkey = 0x80010000u;
		h.deth.src_qp = 1;
		h.udp6_zero_csum = probes[i].zero_csum;
		len = fw_roce_build(frame, sizeof(frame), &h, payload,
				    probes[i].len);
		if (!len || fw_roce_frame_init(&fr, frame, sizeof(frame), &h,
					       probes[i].len))
			goto fail;
		if (!probes[i].good && strstr(probes[i].what, "ICRC"))
			frame[fr.icrc_off] ^= 0x01;
		if (!probes[i].good && strstr(probes[i].what, "checksum"))
			frame[fr.udp_off + 6] ^= 0x01;
		if (pcap_write_frame(f, i + 1, frame, len))
			goto fail;
		printf("%u %s %s\n", i + 1, probes[i].good ? "counted" : "dropped",
		       probes[i].what);
	}
	if (fclose(f))
		goto fail;
	return 0;
fail:
	fprintf(stderr, "wire_pcap: cannot write %s\n", path);
	return 1;
}

/* ------------------------------------------------------------------ */
/* compare                                                             */
/* ------------------------------------------------------------------ */

struct row {
	bool has[NUM_COLS];
	unsigned long long val[NUM_COLS];
};

static bool parse_value(const char *s, int c, unsigned long long *out)
{
	char *end;

	if (!*s)
		return false;
	errno = 0;
	*out = strtoull(s, &end, col_is_bytes(c) ? 16 : 0);
	return !errno && end != s;
}

/* One tshark line: tab separated, a column empty when absent */
static bool parse_row(char *line, struct row *r)
{
	char *p = line, *tab;
	int c;

	memset(r, 0, sizeof(*r));
	line[strcspn(line, "\r\n")] = 0;
	for (c = 0; c < NUM_COLS; c++) {
		tab = strchr(p, '\t');
		if (tab)
			*tab = 0;
		r->has[c] = parse_value(p, c, &r->val[c]);
		if (!tab)
			break;
		p = tab + 1;
	}
	return r->has[C_NUM];
}

static void expect_col(struct row *r, int c, unsigned long long v)
{
	r->has[c] = true;
	r->val[c] = v;
}

/* What tshark should show for a frame our parser accepted */
static void expected_row(const struct fw_roce_pkt *pkt, unsigned int num,
			 struct row *r)
{
	struct fw_roce_hdrs h;
	uint32_t icrc = pkt->icrc;
	size_t padded = pkt->payload_len + fw_bth_pad(pkt->bth);

	fw_roce_decode(pkt, &h);
	memset(r, 0, sizeof(*r));
	expect_col(r, C_NUM, num);
	expect_col(r, C_OPCODE, h.opcode);
	expect_col(r, C_DESTQP, h.dest_qp);
	expect_col(r, C_PSN, h.psn);
	expect_col(r, C_PAD, fw_bth_pad(pkt->bth));
	expect_col(r, C_SE, h.se);
	expect_col(r, C_MIG, h.mig);
	expect_col(r, C_ACKREQ, h.ack_req);
	expect_col(r, C_PKEY, h.pkey);
	/* the little-endian ICRC bytes, read as a big-endian number */
	expect_col(r, C_ICRC, icrc >> 24 | (icrc >> 8 & 0xff00) |
		   (icrc << 8 & 0xff0000) | (uint32_t)(icrc << 24));
	if (pkt->reth) {
		expect_col(r, C_VA, h.reth.va);
		expect_col(r, C_RKEY, h.reth.rkey);
		expect_col(r, C_DMALEN, h.reth.dma_len);
	}
	if (pkt->atomic_eth) {	/* Wireshark shares the RETH fields */
		expect_col(r, C_VA, h.atomic.va);
		expect_col(r, C_RKEY, h.atomic.rkey);
		expect_col(r, C_SWAP, h.atomic.swap_add);
		expect_col(r, C_CMP, h.atomic.compare);
	}
	if (pkt->aeth) {
		expect_col(r, C_SYNDROME, h.aeth.syndrome);
		expect_col(r, C_MSN, h.aeth.msn);
	}
	if (pkt->deth) {
		expect_col(r, C_QKEY, h.deth.qkey);
		expect_col(r, C_SRCQP, h.deth.src_qp);
	}
	if (pkt->atomic_ack_eth)
		expect_col(r, C_ORIG, h.atomic_orig);
	if (pkt->immdt)
		expect_col(r, C_IMMDT, h.imm);
	if (pkt->ieth)
		expect_col(r, C_IETH, h.inv_rkey);
	if (padded)	/* Wireshark's data includes the pad */
		expect_col(r, C_DATALEN, padded);
	expect_col(r, C_SPORT, h.udp_sport);
	expect_col(r, C_DPORT, FW_ROCE_UDP_DPORT);
	if (h.vlan_id != FW_ROCE_VLAN_NONE)
		expect_col(r, C_VLAN, h.vlan_id);
}

/* Empty string when equal, else the first difference */
static void diff_rows(const struct row *want, const struct row *got,
		      char *out, size_t size)
{
	int c;

	out[0] = 0;
	for (c = 0; c < NUM_COLS; c++) {
		if (want->has[c] == got->has[c] &&
		    (!want->has[c] || want->val[c] == got->val[c]))
			continue;
		if (!want->has[c])
			snprintf(out, size, "%s: tshark shows %#llx, we have none",
				 col_names[c], got->val[c]);
		else if (!got->has[c])
			snprintf(out, size, "%s: tshark shows none, we have %#llx",
				 col_names[c], want->val[c]);
		else
			snprintf(out, size, "%s: tshark %#llx, we %#llx",
				 col_names[c], got->val[c], want->val[c]);
		return;
	}
}

#define MAX_GROUPS	256

struct group {
	const char *name;
	unsigned int frames, bad;
	char first_diff[240];
};

static struct group *group_of(struct group *groups, unsigned int *ngroups,
			      const char *name)
{
	unsigned int g;

	for (g = 0; g < *ngroups; g++)
		if (!strcmp(groups[g].name, name))
			return &groups[g];
	if (*ngroups == MAX_GROUPS)
		return &groups[MAX_GROUPS - 1];
	memset(&groups[*ngroups], 0, sizeof(groups[0]));
	groups[*ngroups].name = name;
	return &groups[(*ngroups)++];
}

static const char *base_name(const char *path)
{
	const char *slash = strrchr(path, '/');

	return slash ? slash + 1 : path;
}

static int cmd_compare(const char *pcap, const char *tsv, bool per_opcode,
		       unsigned int expect_drops)
{
	static struct frame frames[MAX_FRAMES];
	static struct row rows[MAX_FRAMES];
	static struct group groups[MAX_GROUPS];
	static char line[65536];
	unsigned int ngroups = 0, drops = 0, nrows = 0, g, i;
	unsigned int accepted = 0, disagree = 0;
	char diff[200], drop_list[200] = "";
	struct fw_roce_pkt pkt;
	struct row want, r;
	size_t count = 0;
	struct group *grp;
	FILE *f;

	if (pcap_read(pcap, frames, MAX_FRAMES, &count)) {
		printf("not ok - %s: readable pcap file\n", pcap);
		return 1;
	}
	f = fopen(tsv, "r");
	if (!f) {
		printf("not ok - %s: tshark output readable\n", tsv);
		return 1;
	}
	while (fgets(line, sizeof(line), f)) {
		if (!parse_row(line, &r) || r.val[C_NUM] < 1 ||
		    r.val[C_NUM] > count)
			continue;
		rows[r.val[C_NUM] - 1] = r;
		nrows++;
	}
	fclose(f);
	printf("%s - %s: tshark printed a line for each of the %zu frames\n",
	       nrows == count ? "ok" : "not ok", base_name(pcap), count);

	for (i = 0; i < count; i++) {
		enum fw_roce_drop d = fw_roce_parse(frames[i].data,
						    frames[i].len, &pkt);

		if (d != FW_ROCE_OK) {
			drops++;
			snprintf(drop_list + strlen(drop_list),
				 sizeof(drop_list) - strlen(drop_list),
				 " %u:%s", i + 1, fw_roce_drop_name(d));
			continue;
		}
		accepted++;
		expected_row(&pkt, i + 1, &want);
		diff_rows(&want, &rows[i], diff, sizeof(diff));
		grp = group_of(groups, &ngroups,
			       per_opcode ? pkt.op->name : base_name(pcap));
		grp->frames++;
		if (diff[0]) {
			disagree++;
			if (!grp->bad++)
				snprintf(grp->first_diff,
					 sizeof(grp->first_diff),
					 "frame %u %s", i + 1, diff);
		}
	}
	printf("%s - %s: our parser accepts %u of %zu frames (%u dropped, "
	       "%u expected)\n", drops == expect_drops ? "ok" : "not ok",
	       base_name(pcap), accepted, count, drops, expect_drops);
	if (drops)
		printf("#  dropped:%s\n", drop_list);
	for (g = 0; g < ngroups; g++) {
		printf("%s - tshark decodes %s frames the same as our parser "
		       "(%u frames: BTH, extension headers, ICRC field, "
		       "payload length, UDP ports, VLAN)\n",
		       groups[g].bad ? "not ok" : "ok", groups[g].name,
		       groups[g].frames);
		if (groups[g].bad)
			printf("#  %u differ; first: %s\n", groups[g].bad,
			       groups[g].first_diff);
	}
	for (i = 0; i < count; i++)
		free(frames[i].data);
	return disagree || drops != expect_drops || nrows != count;
}

int main(int argc, char **argv)
{
	if (argc == 3 && !strcmp(argv[1], "gen"))
		return cmd_gen(argv[2]);
	if (argc == 3 && !strcmp(argv[1], "probe"))
		return cmd_probe(argv[2]);
	if (argc == 6 && !strcmp(argv[1], "compare"))
		return cmd_compare(argv[2], argv[3], !strcmp(argv[4], "by-opcode"),
				   (unsigned int)strtoul(argv[5], NULL, 0));
	fprintf(stderr, "usage: wire_pcap gen OUT.pcap\n"
		"       wire_pcap probe OUT.pcap\n"
		"       wire_pcap compare IN.pcap TSHARK.tsv by-opcode|all "
		"EXPECTED_DROPS\n");
	return 2;
}
