// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * The iWARP wire format (wire/fw_iw_wire.h): CRC32c against the iSCSI
 * known answers, MPA requests and replies built and parsed (and the
 * malformed ones refused), the RTR FPDU and the DDP header parser.
 */
#include <string.h>

#include "wire/fw_iw_wire.h"
#include "ordma_test.h"

TEST(test_iw_crc32c_known_answers)
{
	uint8_t buf[32];
	unsigned int i;

	/* RFC 3720 B.4 */
	memset(buf, 0, sizeof(buf));
	CHECK_EQ(fw_crc32c(0, buf, sizeof(buf)), 0x8a9136aau);
	memset(buf, 0xff, sizeof(buf));
	CHECK_EQ(fw_crc32c(0, buf, sizeof(buf)), 0x62a8ab43u);
	for (i = 0; i < sizeof(buf); i++)
		buf[i] = (uint8_t)i;
	CHECK_EQ(fw_crc32c(0, buf, sizeof(buf)), 0x46dd794eu);
	CHECK_EQ(fw_crc32c(0, "123456789", 9), 0xe3069283u);
	/* in pieces, the same */
	CHECK_EQ(fw_crc32c(fw_crc32c(0, "1234", 4), "56789", 5), 0xe3069283u);
}

TEST(test_iw_mpa_request_round_trip)
{
	static const uint8_t pd[] = { 1, 2, 3, 4, 5 };
	struct fw_mpa_msg m = {
		.kind = FW_MPA_REQUEST,
		.flags = FW_MPA_FLAG_CRC | FW_MPA_FLAG_ENHANCED,
		.revision = 2,
		.ird = FW_MPA_V2_PEER2PEER | 16,
		.ord = FW_MPA_V2_RTR_WRITE | FW_MPA_V2_RTR_READ | 8,
		.pd = pd,
		.pd_len = sizeof(pd),
	}, got;
	uint8_t buf[64];
	size_t len;

	len = fw_mpa_build(buf, &m);
	CHECK_EQ(len, 20 + 4 + 5);
	CHECK(!memcmp(buf, "MPA ID Req Frame", 16));
	CHECK_EQ(buf[16], 0x50);
	CHECK_EQ(buf[17], 2);
	CHECK_EQ(buf[18] << 8 | buf[19], 9);
	CHECK_EQ(buf[20] << 8 | buf[21], 0x8010);
	CHECK_EQ(buf[22] << 8 | buf[23], 0xc008);
	CHECK_EQ(fw_mpa_msg_len(buf, 19), 0);
	CHECK_EQ(fw_mpa_msg_len(buf, 20), len);
	CHECK_EQ(fw_mpa_parse(buf, len - 1, FW_MPA_REQUEST, &got),
		 FW_MPA_SHORT);
	REQUIRE_EQ(fw_mpa_parse(buf, len, FW_MPA_REQUEST, &got), FW_MPA_OK);
	CHECK_EQ(got.flags, m.flags);
	CHECK_EQ(got.ird, m.ird);
	CHECK_EQ(got.ord, m.ord);
	CHECK_EQ(got.pd_len, sizeof(pd));
	CHECK(!memcmp(got.pd, pd, sizeof(pd)));
	/* a request is not a reply */
	CHECK_EQ(fw_mpa_parse(buf, len, FW_MPA_REPLY, &got), FW_MPA_BAD_KEY);
}

TEST(test_iw_mpa_malformed)
{
	struct fw_mpa_msg m = {
		.kind = FW_MPA_REPLY, .flags = FW_MPA_FLAG_ENHANCED,
		.revision = 2,
	}, got;
	uint8_t buf[FW_MPA_HDR_LEN + FW_MPA_MAX_PD + 8];
	size_t len = fw_mpa_build(buf, &m);

	CHECK_EQ(fw_mpa_parse(buf, len, FW_MPA_REPLY, &got), FW_MPA_OK);
	buf[17] = 3;
	CHECK_EQ(fw_mpa_parse(buf, len, FW_MPA_REPLY, &got),
		 FW_MPA_BAD_REVISION);
	buf[17] = 0;
	CHECK_EQ(fw_mpa_parse(buf, len, FW_MPA_REPLY, &got),
		 FW_MPA_BAD_REVISION);
	/* enhanced without the IRD and ORD words */
	buf[17] = 2;
	buf[19] = 2;
	CHECK_EQ(fw_mpa_parse(buf, sizeof(buf), FW_MPA_REPLY, &got),
		 FW_MPA_BAD_PD_LEN);
	/* more private data than RFC 5044 allows */
	buf[18] = (FW_MPA_MAX_PD + 1) >> 8;
	buf[19] = (FW_MPA_MAX_PD + 1) & 0xff;
	CHECK_EQ(fw_mpa_parse(buf, sizeof(buf), FW_MPA_REPLY, &got),
		 FW_MPA_BAD_PD_LEN);
	/* revision 1: no words, all of it is the ULP's */
	buf[16] = 0;
	buf[17] = 1;
	buf[18] = 0;
	buf[19] = 3;
	REQUIRE_EQ(fw_mpa_parse(buf, 23, FW_MPA_REPLY, &got), FW_MPA_OK);
	CHECK_EQ(got.pd_len, 3);
	CHECK_EQ(got.ird, 0);
	buf[0] ^= 1;
	CHECK_EQ(fw_mpa_parse(buf, 23, FW_MPA_REPLY, &got), FW_MPA_BAD_KEY);
}

TEST(test_iw_rtr_fpdu)
{
	struct fw_ddp_hdr h;
	uint8_t buf[32];
	size_t len = fw_iw_build_rtr_write(buf);

	CHECK_EQ(len, fw_fpdu_len(FW_DDP_TAGGED_HLEN));
	CHECK_EQ(len, 20);
	CHECK_EQ(buf[0] << 8 | buf[1], FW_DDP_TAGGED_HLEN);
	CHECK(fw_fpdu_crc_ok(buf, len));
	REQUIRE(fw_ddp_parse(buf + 2, FW_DDP_TAGGED_HLEN, &h));
	CHECK(h.tagged);
	CHECK(h.last);
	CHECK_EQ(h.ddp_version, 1);
	CHECK_EQ(h.rdmap_version, 1);
	CHECK_EQ(h.opcode, FW_RDMAP_WRITE);
	CHECK_EQ(h.stag, FW_IW_RTR_STAG);
	CHECK_EQ(h.to, 0);
	/* pad is zero; any changed byte fails the CRC */
	CHECK_EQ(buf[16 - 1], 0);
	buf[5] ^= 0x10;
	CHECK(!fw_fpdu_crc_ok(buf, len));
	buf[5] ^= 0x10;
	CHECK(!fw_fpdu_crc_ok(buf, len - 1));
	/* an untagged header is longer */
	buf[2] = FW_DDP_LAST | FW_DDP_VERSION;
	CHECK(!fw_ddp_parse(buf + 2, FW_DDP_TAGGED_HLEN, &h));
	CHECK(!fw_ddp_parse(buf + 2, 1, &h));
}
