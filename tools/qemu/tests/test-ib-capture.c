/* SPDX-License-Identifier: GPL-2.0-or-later */
/*
 * Host test of an InfiniBand port capture: native InfiniBand packets
 * built by the firmware's wire layer (firmware/wire/fw_ib_wire.c) on a
 * pcapng interface of LINKTYPE_INFINIBAND (ordma-pcap-format.c), then
 *
 *   - read back with the capture's own reader and parsed by the firmware;
 *   - dissected by tshark: every LRH, GRH, BTH and extension header field
 *     and both CRCs as built, no malformed packet, no expert info;
 *   - their ICRC and VCRC recomputed by an implementation that shares no
 *     code with the firmware (firmware/tests/wire/vectors/ib_reference.py).
 *
 * Wireshark knows LINKTYPE_INFINIBAND only from some version on (4.0
 * reads it as an unknown encapsulation); when tshark does not dissect
 * the file as InfiniBand, the same packets are handed to it on a
 * LINKTYPE_USER0 interface with the user DLT table mapping that to its
 * "infiniband" dissector, and the test says so.  Wireshark shows the two
 * CRCs without verifying them (4.0 has no verdict field): the verdict
 * test runs where a version has one and is skipped otherwise.  Without
 * tshark (or python3) those tests are skipped.
 *
 * Built with the sanitizers; TAP output (tools/testing/ordma_test.h).
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "fw_ib_wire.h"
#include "ordma-pcap-format.h"
#include "ordma_test.h"

#ifndef ORDMA_IB_REFERENCE
#define ORDMA_IB_REFERENCE "firmware/tests/wire/vectors/ib_reference.py"
#endif

#define LINKTYPE_USER0  147
#define MAX_PKTS        8
#define FILE_ROOM       (64 * 1024)

static const uint8_t gid_a[16] = {
    0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0, 0x01
};
static const uint8_t gid_b[16] = {
    0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xc9, 0x03, 0, 0, 0, 0x02
};

typedef struct IbSample {
    const char *what;
    struct fw_ib_hdrs h;
    size_t payload_len;
    uint8_t pkt[1024];
    size_t len;
} IbSample;

static IbSample samples[MAX_PKTS];
static size_t nsamples;

static void sample_base(struct fw_ib_hdrs *h, uint8_t opcode)
{
    memset(h, 0, sizeof(*h));
    h->vl = 1;
    h->sl = 2;
    h->dlid = 0x0011;
    h->slid = 0x0022;
    h->xport.opcode = opcode;
    h->xport.pkey = 0xffff;
    h->xport.dest_qp = 0x000a1b;
    h->xport.psn = 0x00c0de;
}

static void add_sample(const char *what, const struct fw_ib_hdrs *h,
                       size_t payload_len)
{
    IbSample *s = &samples[nsamples++];
    struct fw_ib_frame f;
    size_t i;

    s->what = what;
    s->h = *h;
    s->payload_len = payload_len;
    if (fw_ib_frame_init(&f, s->pkt, sizeof(s->pkt), h, payload_len)) {
        s->len = 0;
        return;
    }
    for (i = 0; i < payload_len; i++) {
        s->pkt[f.payload_off + i] = (uint8_t)(0x30 + i % 40);
    }
    fw_ib_frame_seal(&f);
    s->len = f.len;
}

/* RC SEND, RDMA WRITE with RETH, ACK with AETH, UD SEND with DETH, and
 * RC and UD packets behind a GRH.
 */
static void make_samples(void)
{
    struct fw_ib_hdrs h;

    nsamples = 0;
    sample_base(&h, FW_ROCE_RC_SEND_ONLY);
    h.xport.se = true;
    h.xport.ack_req = true;
    add_sample("RC SEND Only", &h, 13);

    sample_base(&h, FW_ROCE_RC_RDMA_WRITE_ONLY);
    h.vl = 3;
    h.sl = 9;
    h.xport.pkey = 0x8001;
    h.xport.ack_req = true;
    h.xport.psn = 0xfedcba;
    h.xport.reth.va = 0x00007f0012345000ULL;
    h.xport.reth.rkey = 0x00c0ffee;
    h.xport.reth.dma_len = 64;
    add_sample("RC RDMA WRITE Only (RETH)", &h, 64);

    sample_base(&h, FW_ROCE_RC_ACKNOWLEDGE);
    h.dlid = 0x0022;
    h.slid = 0x0011;
    h.xport.dest_qp = 0x000b2c;
    h.xport.aeth.syndrome = fw_aeth_ack(FW_AETH_CREDITS_INVALID);
    h.xport.aeth.msn = 0x000123;
    add_sample("RC Acknowledge (AETH)", &h, 0);

    sample_base(&h, FW_ROCE_UD_SEND_ONLY);
    h.sl = 0;
    h.xport.dest_qp = 0x000042;
    h.xport.deth.qkey = 0x11111111;
    h.xport.deth.src_qp = 0x000043;
    add_sample("UD SEND Only (DETH)", &h, 30);

    sample_base(&h, FW_ROCE_UD_SEND_ONLY);
    h.global = true;
    h.dlid = 0x0033;
    h.xport.dest_qp = 0x000044;
    h.xport.deth.qkey = 0x22222222;
    h.xport.deth.src_qp = 0x000045;
    h.xport.traffic_class = 0x28;
    h.xport.flow_label = 0x54321;
    h.xport.hop_limit = 5;
    memcpy(h.xport.sgid, gid_a, 16);
    memcpy(h.xport.dgid, gid_b, 16);
    add_sample("UD SEND Only behind a GRH", &h, 7);

    sample_base(&h, FW_ROCE_RC_RDMA_WRITE_ONLY);
    h.global = true;
    h.xport.reth.va = 0x1000;
    h.xport.reth.rkey = 0x77;
    h.xport.reth.dma_len = 8;
    h.xport.traffic_class = 0;
    h.xport.flow_label = 1;
    h.xport.hop_limit = 255;
    memcpy(h.xport.sgid, gid_b, 16);
    memcpy(h.xport.dgid, gid_a, 16);
    add_sample("RC RDMA WRITE Only behind a GRH", &h, 8);
}

/* A pcapng file of the samples on one interface of linktype: its size */
static size_t capture(uint8_t *f, size_t room, uint16_t linktype)
{
    size_t n = 0, i;

    n += ordma_pcap_shb(f + n, room - n, "test-ib-capture");
    n += ordma_pcap_idb_link(f + n, room - n, linktype, "ib0", 0);
    for (i = 0; i < nsamples; i++) {
        n += ordma_pcap_epb(f + n, room - n, 0, 1000000000ULL * (i + 1),
                            ORDMA_PCAP_DIR_OUT, samples[i].pkt,
                            samples[i].len, 0, NULL);
    }
    return n;
}

static char tmpdir[] = "/tmp/ordma-ib-capture.XXXXXX";

static void cleanup(void)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "rm -rf '%s'", tmpdir);
    if (system(cmd)) {
        NOTE("could not remove %s", tmpdir);
    }
}

/* Writes the capture to a new directory; its path in path */
static bool write_capture(char *path, size_t room, uint16_t linktype)
{
    static uint8_t f[FILE_ROOM];
    size_t n;
    FILE *fp;

    make_samples();
    n = capture(f, sizeof(f), linktype);
    if (!mkdtemp(tmpdir)) {
        NOTE("mkdtemp: %s", strerror(errno));
        return false;
    }
    atexit(cleanup);
    snprintf(path, room, "%s/ib.pcapng", tmpdir);
    fp = fopen(path, "wb");
    if (!fp) {
        return false;
    }
    if (fwrite(f, 1, n, fp) != n) {
        fclose(fp);
        return false;
    }
    return fclose(fp) == 0;
}

static bool have(const char *prog)
{
    char cmd[128];

    snprintf(cmd, sizeof(cmd), "command -v %s >/dev/null 2>&1", prog);
    return system(cmd) == 0;
}

/* Output of a shell command (stdout; stderr to the tshark log) */
static char *run(const char *cmd, int *status)
{
    size_t len = 0, cap = 4096;
    char *out = malloc(cap);
    FILE *p = popen(cmd, "r");
    size_t got;

    if (!p || !out) {
        free(out);
        *status = -1;
        return NULL;
    }
    while ((got = fread(out + len, 1, cap - len - 1, p)) > 0) {
        len += got;
        if (cap - len < 2) {
            char *bigger = realloc(out, cap * 2);

            if (!bigger) {
                break;
            }
            out = bigger;
            cap *= 2;
        }
    }
    out[len] = '\0';
    *status = pclose(p);
    return out;
}

/* The arguments that keep the payload's heuristic dissectors off (they
 * would take test patterns for upper-layer protocols and call them
 * malformed; as tests/wire/tshark-interop.sh does for RoCE, by
 * disabling their protocols) and, for the LINKTYPE_USER0 fallback, map
 * that to the InfiniBand dissector.
 */
static void tshark_args(char *args, size_t room, bool user_dlt)
{
    int status;
    char *heur = run("tshark -G heuristic-decodes 2>/dev/null | "
                     "awk '$1 == \"infiniband.payload\" { print $2 }'",
                     &status);
    char *protos = run("tshark -G protocols 2>/dev/null | cut -f3",
                       &status);
    char *line, *save = NULL, want[80];
    size_t n = 0;

    n += (size_t)snprintf(args + n, room - n, "-n");
    if (user_dlt) {
        n += (size_t)snprintf(args + n, room - n,
                              " -o 'uat:user_dlts:\"User 0 (DLT=147)\","
                              "\"infiniband\",\"0\",\"\",\"0\",\"\"'");
    }
    for (line = heur && protos ? strtok_r(heur, "\n", &save) : NULL; line;
         line = strtok_r(NULL, "\n", &save)) {
        /* what carries our headers stays on */
        if (!strcmp(line, "ethertype") || !strncmp(line, "infiniband", 10) ||
            strlen(line) > 64 || n + 96 > room) {
            continue;
        }
        snprintf(want, sizeof(want), "\n%s\n", line);
        if (strstr(protos, want)) {
            n += (size_t)snprintf(args + n, room - n,
                                  " --disable-protocol '%s'", line);
        }
    }
    free(heur);
    free(protos);
}

/* tshark on the capture: the linktype tshark dissects as InfiniBand, or
 * 0; args gets the tshark arguments to use with it.
 */
static uint16_t tshark_setup(char *path, size_t room, char *args,
                             size_t args_room)
{
    char cmd[4096];
    int status;
    char *out;
    size_t n = 0;

    setenv("HOME", "/tmp", 0);
    if (!write_capture(path, room, ORDMA_PCAP_LINK_INFINIBAND)) {
        return 0;
    }
    tshark_args(args, args_room, false);
    snprintf(cmd, sizeof(cmd), "tshark %s -r '%s' -Y infiniband.lrh "
             "-T fields -e frame.number 2>/dev/null", args, path);
    out = run(cmd, &status);
    if (out) {
        char *p;

        for (p = out; *p; p++) {
            n += *p == '\n';
        }
    }
    free(out);
    if (n == nsamples) {
        NOTE("tshark dissects LINKTYPE_INFINIBAND");
        return ORDMA_PCAP_LINK_INFINIBAND;
    }
    NOTE("tshark does not dissect LINKTYPE_INFINIBAND (%zu of %zu "
         "packets): the packets go to it on LINKTYPE_USER0 as "
         "\"infiniband\"", n, nsamples);
    cleanup();
    strcpy(tmpdir, "/tmp/ordma-ib-capture.XXXXXX");
    if (!write_capture(path, room, LINKTYPE_USER0)) {
        return 0;
    }
    tshark_args(args, args_room, true);
    return LINKTYPE_USER0;
}

TEST(capture_reads_back_and_parses)
{
    static uint8_t f[FILE_ROOM];
    OrdmaPcapReader r;
    OrdmaPcapBlock b;
    struct fw_ib_pkt p;
    size_t n, i = 0;
    uint8_t *copy;

    make_samples();
    for (i = 0; i < nsamples; i++) {
        REQUIRE(samples[i].len);
    }
    n = capture(f, sizeof(f), ORDMA_PCAP_LINK_INFINIBAND);
    ordma_pcap_reader_init(&r, f, n);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    REQUIRE_EQ(ordma_pcap_read(&r, &b), 1);
    CHECK_EQ(b.linktype, ORDMA_PCAP_LINK_INFINIBAND);
    for (i = 0; ordma_pcap_read(&r, &b) == 1; i++) {
        REQUIRE(i < nsamples);
        CHECK_EQ(b.caplen, samples[i].len);
        copy = malloc(b.caplen);
        REQUIRE(copy);
        memcpy(copy, b.data, b.caplen);
        CHECK_EQ(fw_ib_parse(copy, b.caplen, &p), FW_IB_OK);
        free(copy);
    }
    CHECK_EQ(i, nsamples);
}

/* tshark -e columns, in this order */
static const char *const columns[] = {
    "infiniband.lrh.vl", "infiniband.lrh.lver", "infiniband.lrh.sl",
    "infiniband.lrh.lnh", "infiniband.lrh.dlid", "infiniband.lrh.pktlen",
    "infiniband.lrh.slid", "infiniband.bth.opcode", "infiniband.bth.se",
    "infiniband.bth.padcnt", "infiniband.bth.p_key",
    "infiniband.bth.destqp", "infiniband.bth.a", "infiniband.bth.psn",
    "infiniband.grh.ipver", "infiniband.grh.tclass",
    "infiniband.grh.flowlabel", "infiniband.grh.paylen",
    "infiniband.grh.nxthdr", "infiniband.grh.hoplmt",
    "infiniband.reth.va", "infiniband.reth.r_key",
    "infiniband.reth.dmalen", "infiniband.aeth.syndrome",
    "infiniband.aeth.msn", "infiniband.deth.q_key",
    "infiniband.deth.srcqp", "infiniband.invariant.crc",
    "infiniband.variant.crc", "infiniband.grh.sgid", "infiniband.grh.dgid",
};

#define NUM_COLUMNS (sizeof(columns) / sizeof(columns[0]))

/* What each column must show for sample s; NULL: must be empty */
static bool expected(const IbSample *s, size_t c, char *buf, size_t room)
{
    const struct fw_ib_hdrs *h = &s->h;
    const struct fw_roce_hdrs *t = &h->xport;
    const struct fw_roce_opcode_info *op = fw_roce_opcode_info(t->opcode);
    const uint8_t *icrc = s->pkt + s->len - 6;
    const uint8_t *vcrc = s->pkt + s->len - 2;
    unsigned int pad = (unsigned int)((4 - s->payload_len % 4) % 4);
    const char *name = columns[c];

    if (!strncmp(name, "infiniband.grh.", 15) && !h->global) {
        return false;
    }
    if (!strncmp(name, "infiniband.reth.", 16) &&
        !(op->flags & FW_ROCE_HAS_RETH)) {
        return false;
    }
    if (!strncmp(name, "infiniband.aeth.", 16) &&
        !(op->flags & FW_ROCE_HAS_AETH)) {
        return false;
    }
    if (!strncmp(name, "infiniband.deth.", 16) &&
        !(op->flags & FW_ROCE_HAS_DETH)) {
        return false;
    }
    switch (c) {
    case 0: snprintf(buf, room, "0x%02x", h->vl); break;
    case 1: snprintf(buf, room, "0"); break;
    case 2: snprintf(buf, room, "%u", h->sl); break;
    case 3: snprintf(buf, room, "0x%02x", h->global ? 3 : 2); break;
    case 4: snprintf(buf, room, "%u", h->dlid); break;
    case 5: snprintf(buf, room, "%zu", (s->len - 2) / 4); break;
    case 6: snprintf(buf, room, "%u", h->slid); break;
    case 7: snprintf(buf, room, "%u", t->opcode); break;
    case 8: snprintf(buf, room, "%s", t->se ? "1" : "0"); break;
    case 9: snprintf(buf, room, "%u", pad); break;
    case 10: snprintf(buf, room, "%u", t->pkey); break;
    case 11: snprintf(buf, room, "0x%06x", t->dest_qp); break;
    case 12: snprintf(buf, room, "%s", t->ack_req ? "1" : "0"); break;
    case 13: snprintf(buf, room, "%u", t->psn); break;
    case 14: snprintf(buf, room, "6"); break;
    case 15: snprintf(buf, room, "%u", t->traffic_class); break;
    case 16: snprintf(buf, room, "%u", t->flow_label); break;
    case 17: snprintf(buf, room, "%zu", s->len - 2 - 8 - 40); break;
    case 18: snprintf(buf, room, "27"); break;
    case 19: snprintf(buf, room, "%u", t->hop_limit); break;
    case 20: snprintf(buf, room, "0x%016llx",
                      (unsigned long long)t->reth.va); break;
    case 21: snprintf(buf, room, "0x%08x", t->reth.rkey); break;
    case 22: snprintf(buf, room, "%u", t->reth.dma_len); break;
    case 23: snprintf(buf, room, "%u", t->aeth.syndrome); break;
    case 24: snprintf(buf, room, "%u", t->aeth.msn); break;
    case 25: snprintf(buf, room, "0x%016x", t->deth.qkey); break;
    case 26: snprintf(buf, room, "0x%08x", t->deth.src_qp); break;
    /* both CRCs shown as their bytes read big endian */
    case 27: snprintf(buf, room, "0x%02x%02x%02x%02x", icrc[0], icrc[1],
                      icrc[2], icrc[3]); break;
    case 28: snprintf(buf, room, "0x%02x%02x", vcrc[0], vcrc[1]); break;
    case 29: snprintf(buf, room, "fe80::2:c903:0:%u",
                      t->sgid[15]); break;
    case 30: snprintf(buf, room, "fe80::2:c903:0:%u",
                      t->dgid[15]); break;
    default: return false;
    }
    return true;
}

TEST(tshark_decodes_every_field)
{
    char path[256], args[4096], cmd[8192], want[64];
    char *out, *line, *save = NULL;
    size_t n, i, c, checked = 0;
    int status;

    if (!have("tshark")) {
        SKIP("tshark is not installed");
    }
    REQUIRE(tshark_setup(path, sizeof(path), args, sizeof(args)));
    n = (size_t)snprintf(cmd, sizeof(cmd),
                         "tshark %s -r '%s' -T fields -E separator=/t "
                         "-E occurrence=f", args, path);
    for (c = 0; c < NUM_COLUMNS; c++) {
        n += (size_t)snprintf(cmd + n, sizeof(cmd) - n, " -e %s",
                              columns[c]);
    }
    snprintf(cmd + n, sizeof(cmd) - n, " 2>/dev/null");
    out = run(cmd, &status);
    REQUIRE(out);
    CHECK_EQ(status, 0);
    for (i = 0, line = strtok_r(out, "\n", &save); line;
         line = strtok_r(NULL, "\n", &save), i++) {
        char *field = line, *tab;

        if (!CHECK(i < nsamples)) {
            break;
        }
        for (c = 0; c < NUM_COLUMNS; c++) {
            bool present;

            tab = strchr(field, '\t');
            if (tab) {
                *tab = '\0';
            }
            present = expected(&samples[i], c, want, sizeof(want));
            if (present ? strcmp(field, want) : *field != '\0') {
                NOTE("%s: %s is \"%s\", expected \"%s\"", samples[i].what,
                     columns[c], field, present ? want : "");
                CHECK(false);
            }
            checked += present;
            field = tab ? tab + 1 : field + strlen(field);
        }
    }
    CHECK_EQ(i, nsamples);
    NOTE("%zu packets, %zu fields as built", i, checked);
    free(out);
}

TEST(tshark_finds_nothing_malformed)
{
    char path[256], args[4096], cmd[8192];
    int status;
    char *out;

    if (!have("tshark")) {
        SKIP("tshark is not installed");
    }
    REQUIRE(tshark_setup(path, sizeof(path), args, sizeof(args)));
    snprintf(cmd, sizeof(cmd), "tshark %s -r '%s' -Y '_ws.malformed || "
             "_ws.expert' -T fields -e frame.number -e _ws.expert.message "
             "2>/dev/null", args, path);
    out = run(cmd, &status);
    REQUIRE(out);
    CHECK_EQ(status, 0);
    if (*out) {
        NOTE("malformed or with expert info:\n%s", out);
    }
    CHECK(!*out);
    free(out);
    /* and the whole packet is InfiniBand's, nothing left over */
    snprintf(cmd, sizeof(cmd), "tshark %s -r '%s' -T fields "
             "-e frame.protocols 2>/dev/null | sort | uniq -c", args, path);
    out = run(cmd, &status);
    REQUIRE(out);
    NOTE("protocols:\n%s", out);
    CHECK(strstr(out, "infiniband"));
    free(out);
}

TEST(crcs_match_independent_reference)
{
    char path[256], cmd[1024];
    int status;
    char *out;

    if (!have("python3")) {
        SKIP("python3 is not installed");
    }
    REQUIRE(write_capture(path, sizeof(path), ORDMA_PCAP_LINK_INFINIBAND));
    snprintf(cmd, sizeof(cmd), "python3 '%s' verify '%s' 2>&1",
             ORDMA_IB_REFERENCE, path);
    out = run(cmd, &status);
    REQUIRE(out);
    NOTE("%s: %s", ORDMA_IB_REFERENCE, out);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    free(out);
}

TEST(tshark_crc_verdict)
{
    char path[256], args[4096], cmd[8192];
    int status;
    char *out;
    size_t good = 0;

    if (!have("tshark")) {
        SKIP("tshark is not installed");
    }
    out = run("tshark -G fields 2>/dev/null | cut -f3 | "
              "grep -cx 'infiniband\\.\\(in\\)\\?variant\\.crc\\.status'",
              &status);
    REQUIRE(out);
    if (atoi(out) != 2) {
        free(out);
        SKIP("this tshark shows ICRC and VCRC but does not verify them");
    }
    free(out);
    REQUIRE(tshark_setup(path, sizeof(path), args, sizeof(args)));
    snprintf(cmd, sizeof(cmd), "tshark %s -r '%s' -Y "
             "'infiniband.invariant.crc.status == 1 && "
             "infiniband.variant.crc.status == 1' -T fields "
             "-e frame.number 2>/dev/null", args, path);
    out = run(cmd, &status);
    REQUIRE(out);
    for (char *p = out; *p; p++) {
        good += *p == '\n';
    }
    CHECK_EQ(good, nsamples);
    free(out);
}
