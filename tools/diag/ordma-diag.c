// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ordma-diag: bring-up and diagnostic tool for ORDMA NICs.
 *
 * Talks to the core driver's debugfs directory
 * /sys/kernel/debug/ordma/<pci name>/: the 'regs', 'health' and
 * 'resources' text files, and 'admin_cmd', which passes one raw admin
 * command to the device (write the 64-byte command, then read the 32-byte
 * completion on the same open file).  Commands that need a DMA buffer
 * (QUERY_DEVICE, QUERY_PORT, QUERY_STATS, QUERY_RESOURCES) cannot be
 * issued from userspace this way; the driver's devlink, ethtool and RDMA
 * interfaces and the 'resources' file report what they return.
 *
 * Exit status: 0 success (for a command: completion status OK),
 * 1 the device completed the command with an error status, 2 usage error,
 * 3 no such device, debugfs interface missing or I/O error.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <ordma-compat/ordma_compat.h>
#include <linux/ordma/ordma_hw.h>

#define EXIT_CMD_ERROR	1
#define EXIT_USAGE	2
#define EXIT_IO		3

#define DEBUGFS_ROOT	"/sys/kernel/debug/ordma"
#define PAYLOAD_SIZE	(ORDMA_AQ_CMD_SIZE - sizeof(struct ordma_aq_cmd_hdr))

static const char *const opcode_names[] = {
	[ORDMA_CMD_QUERY_FW]		= "QUERY_FW",
	[ORDMA_CMD_QUERY_DEVICE]	= "QUERY_DEVICE",
	[ORDMA_CMD_QUERY_PORT]		= "QUERY_PORT",
	[ORDMA_CMD_SET_PORT]		= "SET_PORT",
	[ORDMA_CMD_HEALTH]		= "HEALTH",
	[ORDMA_CMD_QUERY_STATS]		= "QUERY_STATS",
	[ORDMA_CMD_QUERY_RESOURCES]	= "QUERY_RESOURCES",
	[ORDMA_CMD_CREATE_EQ]		= "CREATE_EQ",
	[ORDMA_CMD_DESTROY_EQ]		= "DESTROY_EQ",
	[ORDMA_CMD_CREATE_ETH_RING]	= "CREATE_ETH_RING",
	[ORDMA_CMD_DESTROY_ETH_RING]	= "DESTROY_ETH_RING",
	[ORDMA_CMD_ADD_GID]		= "ADD_GID",
	[ORDMA_CMD_DEL_GID]		= "DEL_GID",
	[ORDMA_CMD_ALLOC_UCTX]		= "ALLOC_UCTX",
	[ORDMA_CMD_DEALLOC_UCTX]	= "DEALLOC_UCTX",
	[ORDMA_CMD_ALLOC_PD]		= "ALLOC_PD",
	[ORDMA_CMD_DEALLOC_PD]		= "DEALLOC_PD",
	[ORDMA_CMD_CREATE_CQ]		= "CREATE_CQ",
	[ORDMA_CMD_DESTROY_CQ]		= "DESTROY_CQ",
	[ORDMA_CMD_CREATE_QP]		= "CREATE_QP",
	[ORDMA_CMD_MODIFY_QP]		= "MODIFY_QP",
	[ORDMA_CMD_QUERY_QP]		= "QUERY_QP",
	[ORDMA_CMD_QUERY_QP_STATS]	= "QUERY_QP_STATS",
	[ORDMA_CMD_DESTROY_QP]		= "DESTROY_QP",
	[ORDMA_CMD_CREATE_SRQ]		= "CREATE_SRQ",
	[ORDMA_CMD_MODIFY_SRQ]		= "MODIFY_SRQ",
	[ORDMA_CMD_DESTROY_SRQ]		= "DESTROY_SRQ",
	[ORDMA_CMD_REG_MR]		= "REG_MR",
	[ORDMA_CMD_DEREG_MR]		= "DEREG_MR",
	[ORDMA_CMD_CREATE_AH]		= "CREATE_AH",
	[ORDMA_CMD_DESTROY_AH]		= "DESTROY_AH",
	[ORDMA_CMD_ALLOC_MW]		= "ALLOC_MW",
	[ORDMA_CMD_DEALLOC_MW]		= "DEALLOC_MW",
	[ORDMA_CMD_ATTACH_MCAST]	= "ATTACH_MCAST",
	[ORDMA_CMD_DETACH_MCAST]	= "DETACH_MCAST",
	[ORDMA_CMD_PROCESS_MAD]		= "PROCESS_MAD",
	[ORDMA_CMD_SET_NODE_DESC]	= "SET_NODE_DESC",
	[ORDMA_CMD_MODIFY_IB_PORT]	= "MODIFY_IB_PORT",
};

static const char *const health_names[] = {
	[ORDMA_HEALTH_OK]		= "OK",
	[ORDMA_HEALTH_DEGRADED]		= "DEGRADED",
	[ORDMA_HEALTH_FATAL]		= "FATAL",
};

static const char *name_of(const char *const *names, size_t n, unsigned int v)
{
	return v < n && names[v] ? names[v] : "UNKNOWN";
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ordma-diag [-d PCI_NAME] COMMAND [ARGS]\n"
		"\n"
		"commands:\n"
		"  list                   ORDMA devices the driver has bound\n"
		"  regs                   BAR0 registers\n"
		"  health                 device health and driver counters\n"
		"  resources              objects the device holds: TYPE IN_USE MAX\n"
		"                         (QUERY_RESOURCES)\n"
		"  query-fw               firmware and hardware version (QUERY_FW)\n"
		"  raw OPCODE [HEX...]    one admin command; OPCODE is a number\n"
		"                         or a name (ALLOC_PD), HEX the payload\n"
		"                         bytes (up to %zu, rest zero)\n"
		"  entry HEX...           one admin command given as the whole\n"
		"                         %d-byte entry, header included\n"
		"\n"
		"-d selects the device (default: the only one).  Exit status:\n"
		"0 ok, 1 command failed on the device, 2 usage, 3 I/O error.\n",
		PAYLOAD_SIZE, ORDMA_AQ_CMD_SIZE);
}

/* Find the device directory: @pci if given, else the only one present. */
static int device_dir(const char *pci, char *dir, size_t len)
{
	struct dirent *de;
	int found = 0;
	DIR *d;

	if (pci) {
		snprintf(dir, len, DEBUGFS_ROOT "/%s", pci);
		if (access(dir, F_OK)) {
			fprintf(stderr, "ordma-diag: %s: %s\n", dir,
				strerror(errno));
			return EXIT_IO;
		}
		return 0;
	}
	d = opendir(DEBUGFS_ROOT);
	if (!d) {
		fprintf(stderr, "ordma-diag: %s: %s (debugfs mounted, ordma_core loaded?)\n",
			DEBUGFS_ROOT, strerror(errno));
		return EXIT_IO;
	}
	while ((de = readdir(d))) {
		if (de->d_name[0] == '.')
			continue;
		if (found++ == 0)
			snprintf(dir, len, DEBUGFS_ROOT "/%s", de->d_name);
	}
	closedir(d);
	if (found == 1)
		return 0;
	fprintf(stderr, found ? "ordma-diag: %d devices, select one with -d\n" :
		"ordma-diag: no ORDMA device\n", found);
	return found ? EXIT_USAGE : EXIT_IO;
}

static int list_devices(void)
{
	struct dirent *de;
	DIR *d;

	d = opendir(DEBUGFS_ROOT);
	if (!d) {
		fprintf(stderr, "ordma-diag: %s: %s\n", DEBUGFS_ROOT,
			strerror(errno));
		return EXIT_IO;
	}
	while ((de = readdir(d)))
		if (de->d_name[0] != '.')
			printf("%s\n", de->d_name);
	closedir(d);
	return 0;
}

static int cat_file(const char *dir, const char *name)
{
	char path[PATH_MAX], buf[4096];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "ordma-diag: %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	while ((n = read(fd, buf, sizeof(buf))) > 0)
		fwrite(buf, 1, n, stdout);
	if (n < 0)
		fprintf(stderr, "ordma-diag: %s: %s\n", path, strerror(errno));
	close(fd);
	return n < 0 ? EXIT_IO : 0;
}

/* Run one command through admin_cmd; 0 when a completion was read. */
static int exec_cmd(const char *dir, const struct ordma_aq_cmd *cmd,
		    struct ordma_aq_comp *comp)
{
	char path[PATH_MAX];
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "%s/admin_cmd", dir);
	fd = open(path, O_RDWR);
	if (fd < 0) {
		fprintf(stderr, "ordma-diag: %s: %s\n", path, strerror(errno));
		return EXIT_IO;
	}
	n = write(fd, cmd, sizeof(*cmd));
	if (n != sizeof(*cmd)) {
		fprintf(stderr, "ordma-diag: command not executed: %s\n",
			n < 0 ? strerror(errno) : "short write");
		close(fd);
		return EXIT_IO;
	}
	n = read(fd, comp, sizeof(*comp));
	if (n != sizeof(*comp)) {
		fprintf(stderr, "ordma-diag: no completion: %s\n",
			n < 0 ? strerror(errno) : "short read");
		close(fd);
		return EXIT_IO;
	}
	close(fd);
	return 0;
}

static int parse_opcode(const char *s, unsigned int *op)
{
	unsigned int i;
	char *end;
	long v;

	for (i = 0; i < ARRAY_SIZE(opcode_names); i++) {
		if (opcode_names[i] && !strcasecmp(s, opcode_names[i])) {
			*op = i;
			return 0;
		}
	}
	errno = 0;
	v = strtol(s, &end, 0);
	if (errno || *end || v < 0 || v > 0xff)
		return -1;
	*op = v;
	return 0;
}

/* Append the hex digits of @s ("0a", "0a0b", "0x0a") to @buf. */
static int parse_hex(const char *s, unsigned char *buf, size_t cap, size_t *len)
{
	unsigned int byte;

	if (!strncasecmp(s, "0x", 2))
		s += 2;
	if (!*s || strlen(s) % 2)
		return -1;
	for (; *s; s += 2) {
		if (*len >= cap || sscanf(s, "%2x", &byte) != 1 ||
		    !strchr("0123456789abcdefABCDEF", s[0]) ||
		    !strchr("0123456789abcdefABCDEF", s[1]))
			return -1;
		buf[(*len)++] = byte;
	}
	return 0;
}

static void print_comp(const struct ordma_aq_cmd *cmd,
		       const struct ordma_aq_comp *comp)
{
	unsigned int op = cmd->hdr.opcode, i;

	printf("opcode 0x%02x %s\n", op,
	       name_of(opcode_names, ARRAY_SIZE(opcode_names), op));
	printf("status %s (%u)\n",
	       ordma_cmd_status_name(comp->status),
	       comp->status);
	printf("syndrome %u\n", le32_to_cpu(comp->syndrome));
	printf("out");
	for (i = 0; i < sizeof(comp->raw); i++)
		printf(" %02x", comp->raw[i]);
	printf("\n");
	if (comp->status != ORDMA_CMD_STATUS_OK)
		return;

	switch (op) {
	case ORDMA_CMD_QUERY_FW: {
		const struct ordma_comp_query_fw *fw = &comp->query_fw;
		uint32_t hw = le32_to_cpu(fw->hw_version);

		printf("fw_version %u.%u.%u\n", le16_to_cpu(fw->major),
		       le16_to_cpu(fw->minor), le16_to_cpu(fw->sub_minor));
		printf("fw_build %u\n", le32_to_cpu(fw->build));
		printf("hw_version %lu.%lu\n",
		       (unsigned long)FIELD_GET(ORDMA_VERSION_MAJOR, hw),
		       (unsigned long)FIELD_GET(ORDMA_VERSION_MINOR, hw));
		break;
	}
	case ORDMA_CMD_HEALTH: {
		const struct ordma_comp_health *h = &comp->health;

		printf("state %s\n", name_of(health_names, ARRAY_SIZE(health_names),
					     le32_to_cpu(h->state)));
		printf("heartbeat %u\n", le32_to_cpu(h->heartbeat));
		printf("cmd_errors %u\n", le32_to_cpu(h->cmd_errors));
		printf("db_errors %u\n", le32_to_cpu(h->db_errors));
		printf("eq_overruns %u\n", le32_to_cpu(h->eq_overruns));
		break;
	}
	case ORDMA_CMD_QUERY_DEVICE:
	case ORDMA_CMD_QUERY_PORT:
	case ORDMA_CMD_QUERY_STATS:
	case ORDMA_CMD_QUERY_RESOURCES:
		/* the answer is in the DMA buffer the command named */
		printf("written %u\n", le32_to_cpu(comp->buf.written));
		break;
	case ORDMA_CMD_CREATE_EQ:
	case ORDMA_CMD_CREATE_ETH_RING:
	case ORDMA_CMD_ALLOC_PD:
		printf("handle %u\n", le32_to_cpu(comp->handle.handle));
		break;
	case ORDMA_CMD_ALLOC_UCTX:
		printf("handle %u\n", le32_to_cpu(comp->handle.handle));
		printf("db_page %u\n", le32_to_cpu(comp->handle.db_page));
		break;
	default:
		break;
	}
}

static int run_cmd(const char *dir, const struct ordma_aq_cmd *cmd)
{
	struct ordma_aq_comp comp;
	int err;

	err = exec_cmd(dir, cmd, &comp);
	if (err)
		return err;
	print_comp(cmd, &comp);
	return comp.status == ORDMA_CMD_STATUS_OK ? 0 : EXIT_CMD_ERROR;
}

/* Build the command of "raw OPCODE [HEX...]" or "entry HEX..." */
static int build_raw(struct ordma_aq_cmd *cmd, int argc, char **argv,
		     int entry)
{
	unsigned char *buf;
	unsigned int op;
	size_t len = 0, cap;
	int i = 0;

	memset(cmd, 0, sizeof(*cmd));
	if (entry) {
		buf = (unsigned char *)cmd;
		cap = sizeof(*cmd);
	} else {
		if (argc < 1 || parse_opcode(argv[0], &op)) {
			fprintf(stderr, "ordma-diag: raw needs an opcode (number or name)\n");
			return EXIT_USAGE;
		}
		cmd->hdr.opcode = op;
		buf = cmd->raw;
		cap = sizeof(cmd->raw);
		i = 1;
	}
	for (; i < argc; i++) {
		if (parse_hex(argv[i], buf, cap, &len)) {
			fprintf(stderr,
				"ordma-diag: bad or too many bytes at '%s' (max %zu)\n",
				argv[i], cap);
			return EXIT_USAGE;
		}
	}
	if (entry && !len) {
		fprintf(stderr, "ordma-diag: entry needs the command bytes\n");
		return EXIT_USAGE;
	}
	return 0;
}

int main(int argc, char **argv)
{
	const char *pci = NULL, *verb;
	struct ordma_aq_cmd cmd;
	char dir[512];
	int opt, err;

	while ((opt = getopt(argc, argv, "+d:h")) != -1) {
		switch (opt) {
		case 'd':
			pci = optarg;
			break;
		case 'h':
			usage(stdout);
			return 0;
		default:
			usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	verb = argv[optind++];
	if (!strcmp(verb, "list"))
		return list_devices();
	if (strcmp(verb, "regs") && strcmp(verb, "health") &&
	    strcmp(verb, "resources") && strcmp(verb, "query-fw") && strcmp(verb, "raw") &&
	    strcmp(verb, "entry")) {
		fprintf(stderr, "ordma-diag: unknown command '%s'\n", verb);
		usage(stderr);
		return EXIT_USAGE;
	}

	memset(&cmd, 0, sizeof(cmd));
	if (!strcmp(verb, "query-fw")) {
		cmd.hdr.opcode = ORDMA_CMD_QUERY_FW;
	} else if (!strcmp(verb, "raw") || !strcmp(verb, "entry")) {
		err = build_raw(&cmd, argc - optind, argv + optind,
				!strcmp(verb, "entry"));
		if (err)
			return err;
	}

	err = device_dir(pci, dir, sizeof(dir));
	if (err)
		return err;
	if (!strcmp(verb, "regs") || !strcmp(verb, "health") ||
	    !strcmp(verb, "resources"))
		return cat_file(dir, verb);
	return run_cmd(dir, &cmd);
}
