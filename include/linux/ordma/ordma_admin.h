/* SPDX-License-Identifier: (GPL-2.0 WITH Linux-syscall-note) OR BSD-3-Clause */
/*
 * ORDMA hardware interface: the admin queue.  Commands and their
 * completions, the buffers commands read or write (query results, QP
 * parameters, page lists) and the device limits behind them.  Drivers
 * and the device use it.
 */
#ifndef _LINUX_ORDMA_ADMIN_H
#define _LINUX_ORDMA_ADMIN_H

#include <linux/ordma/ordma_io.h>

/* ------------------------------------------------------------------ */
/* Admin queue                                                         */
/* ------------------------------------------------------------------ */

#define ORDMA_AQ_CMD_SIZE		64
#define ORDMA_AQ_COMP_SIZE		32
#define ORDMA_AQ_MIN_LOG_DEPTH		1
#define ORDMA_AQ_MAX_LOG_DEPTH		10
/* Largest DMA buffer a command may name (QUERY_DEVICE, QUERY_PORT, ...) */
#define ORDMA_AQ_MAX_BUF		4096

/* The device's one port, numbered as IBTA numbers ports */
#define ORDMA_PORT_NUM			1

enum ordma_cmd_opcode {
	ORDMA_CMD_QUERY_FW		= 0x01,
	ORDMA_CMD_QUERY_DEVICE		= 0x02,
	ORDMA_CMD_QUERY_PORT		= 0x03,
	ORDMA_CMD_SET_PORT		= 0x04,
	ORDMA_CMD_HEALTH		= 0x05,
	ORDMA_CMD_QUERY_STATS		= 0x06,
	ORDMA_CMD_QUERY_RESOURCES	= 0x07,
	ORDMA_CMD_CREATE_EQ		= 0x08,
	ORDMA_CMD_DESTROY_EQ		= 0x09,
	ORDMA_CMD_CREATE_ETH_RING	= 0x0a,
	ORDMA_CMD_DESTROY_ETH_RING	= 0x0b,
	ORDMA_CMD_INJECT_FAULT		= 0x0c,
	/* Firmware update (ORDMA_DEV_CAP_FLASH) */
	ORDMA_CMD_FLASH_WRITE		= 0x0d,
	ORDMA_CMD_FLASH_COMMIT		= 0x0e,
	ORDMA_CMD_QUERY_FLASH		= 0x0f,
	ORDMA_CMD_FW_ACTIVATE		= 0x16,
	/* InfiniBand ports: the subnet and performance management agents */
	ORDMA_CMD_PROCESS_MAD		= 0x17,
	ORDMA_CMD_SET_NODE_DESC		= 0x18,
	ORDMA_CMD_MODIFY_IB_PORT	= 0x19,
	ORDMA_CMD_ADD_GID		= 0x10,
	ORDMA_CMD_DEL_GID		= 0x11,
	ORDMA_CMD_ALLOC_UCTX		= 0x12,
	ORDMA_CMD_DEALLOC_UCTX		= 0x13,
	ORDMA_CMD_ALLOC_PD		= 0x14,
	ORDMA_CMD_DEALLOC_PD		= 0x15,
	/* Verbs interface (v1.1).  Firmware v1.0 answers
	 * ORDMA_CMD_STATUS_BAD_OPCODE.
	 */
	ORDMA_CMD_CREATE_CQ		= 0x20,
	ORDMA_CMD_DESTROY_CQ		= 0x21,
	ORDMA_CMD_CREATE_QP		= 0x24,
	ORDMA_CMD_MODIFY_QP		= 0x25,
	ORDMA_CMD_QUERY_QP		= 0x26,
	ORDMA_CMD_DESTROY_QP		= 0x27,
	ORDMA_CMD_CREATE_SRQ		= 0x28,
	ORDMA_CMD_MODIFY_SRQ		= 0x29,
	ORDMA_CMD_DESTROY_SRQ		= 0x2b,
	ORDMA_CMD_REG_MR		= 0x2c,
	ORDMA_CMD_DEREG_MR		= 0x2d,
	ORDMA_CMD_ALLOC_MW		= 0x2e,
	ORDMA_CMD_DEALLOC_MW		= 0x2f,
	ORDMA_CMD_CREATE_AH		= 0x30,
	ORDMA_CMD_DESTROY_AH		= 0x31,
	ORDMA_CMD_ATTACH_MCAST		= 0x32,
	ORDMA_CMD_DETACH_MCAST		= 0x33,
	ORDMA_CMD_QUERY_QP_STATS	= 0x34,
	ORDMA_CMD_QUERY_CQ		= 0x35,
	/* RDMA protocol of an Ethernet port (ORDMA_DEV_CAP_IWARP) */
	ORDMA_CMD_SET_RDMA_PROTOCOL	= 0x38,
	/* iWARP connections (an iWARP port; Documentation/ordma) */
	ORDMA_CMD_IW_CREATE_LISTEN	= 0x39,
	ORDMA_CMD_IW_DESTROY_LISTEN	= 0x3a,
	ORDMA_CMD_IW_CONNECT		= 0x3b,
	ORDMA_CMD_IW_ACCEPT		= 0x3c,
	ORDMA_CMD_IW_REJECT		= 0x3d,
	ORDMA_CMD_IW_QUERY_CONN		= 0x3e,
	ORDMA_CMD_IW_DESTROY_CONN	= 0x3f,
};

enum ordma_cmd_status {
	ORDMA_CMD_STATUS_OK		= 0,
	ORDMA_CMD_STATUS_BAD_OPCODE	= 1,
	ORDMA_CMD_STATUS_BAD_PARAM	= 2,	/* syndrome = byte offset */
	ORDMA_CMD_STATUS_BAD_HANDLE	= 3,	/* no such object */
	ORDMA_CMD_STATUS_NO_RESOURCES	= 4,
	ORDMA_CMD_STATUS_BAD_STATE	= 5,
	ORDMA_CMD_STATUS_BUSY		= 6,	/* object still referenced */
	ORDMA_CMD_STATUS_DMA_ERROR	= 7,
	ORDMA_CMD_STATUS_NOT_SUPPORTED	= 8,
	ORDMA_CMD_STATUS_PERM		= 9,	/* object owned by another uctx */
	ORDMA_CMD_STATUS_INTERNAL	= 10,
};

/*
 * A BAD_PARAM syndrome is the byte offset of the offending field in the
 * 64-byte command entry.  CREATE_QP and MODIFY_QP, whose parameters are
 * in a host buffer (struct ordma_cmd_buf), report a field of that buffer
 * as ORDMA_SYNDROME_BUF_BASE + its byte offset inside the buffer.
 */
#define ORDMA_SYNDROME_BUF_BASE		64
/*
 * FLASH_COMMIT reports an image it refused as ORDMA_SYNDROME_IMAGE_BASE +
 * its enum ordma_image_error (<linux/ordma/ordma_image.h>): a syndrome
 * below the base is a field's offset, as for every command.
 */
#define ORDMA_SYNDROME_IMAGE_BASE	0x100

struct ordma_aq_cmd_hdr {
	__u8	opcode;			/* enum ordma_cmd_opcode */
	__u8	reserved_1;
	__le16	token;			/* echoed in the completion */
	__le32	reserved_4;
};

/* QUERY_DEVICE, QUERY_PORT, QUERY_STATS, QUERY_RESOURCES: device writes
 * into a buffer
 */
struct ordma_cmd_query_buf {
	__le64	buf_addr;		/* DMA address, 8-byte aligned */
	__le32	buf_len;		/* 1..ORDMA_AQ_MAX_BUF */
	__le32	port;			/* QUERY_PORT/QUERY_STATS: 1; else 0 */
};

#define ORDMA_SET_PORT_MTU		BIT(0)
#define ORDMA_SET_PORT_MAC		BIT(1)
#define ORDMA_SET_PORT_ADMIN		BIT(2)
#define ORDMA_SET_PORT_RX_MODE		BIT(3)
#define ORDMA_SET_PORT_ALL_FIELDS	GENMASK(3, 0)

#define ORDMA_RX_MODE_PROMISC		BIT(0)
#define ORDMA_RX_MODE_ALLMULTI		BIT(1)

struct ordma_cmd_set_port {
	__le32	port;			/* 1 */
	__le32	field_mask;		/* ORDMA_SET_PORT_* */
	__le32	mtu;			/* Ethernet MTU, 68..max_eth_mtu */
	__u8	mac[6];			/* unicast, not zero */
	__u8	admin_up;		/* 0 or 1 */
	__u8	rx_mode;		/* ORDMA_RX_MODE_* */
};

/*
 * INJECT_FAULT: the device's fault injection, for bring-up and driver
 * tests (ORDMA_DEV_CAP_FAULT_INJECT).  A fault armed by the command takes
 * effect once the command's own completion is written.  count: how many
 * times (0 disarms that fault); FATAL and HEARTBEAT_STUCK take no count
 * of repeats: FATAL goes fatal with arg as the fatal code
 * (ORDMA_FATAL_INJECTED if 0), HEARTBEAT_STUCK stops the heartbeat
 * register while count is not 0.  ADMIN_DELAY writes the next count
 * completions arg ms (1..ORDMA_FAULT_MAX_DELAY_MS) late; the commands
 * after a delayed one wait for its completion, in order.  Every fault
 * injected is counted in QUERY_STATS' fault_injected[].
 */
enum ordma_fault {
	ORDMA_FAULT_DMA_READ		= 0,	/* next count DMA reads fail */
	ORDMA_FAULT_DMA_WRITE		= 1,	/* next count DMA writes fail */
	ORDMA_FAULT_ADMIN_DROP		= 2,	/* next count completions lost */
	ORDMA_FAULT_MSIX_DROP		= 3,	/* next count MSI-X not sent */
	ORDMA_FAULT_FATAL		= 4,	/* fatal now, code arg */
	ORDMA_FAULT_HEARTBEAT_STUCK	= 5,	/* heartbeat stops (count 0:
						 * it resumes)
						 */
	ORDMA_FAULT_ADMIN_DELAY		= 6,	/* next count completions
						 * arg ms late
						 */
};

#define ORDMA_FAULTS			7
/* ADMIN_DELAY: the longest delay, in ms */
#define ORDMA_FAULT_MAX_DELAY_MS	60000

struct ordma_cmd_inject_fault {
	__le32	fault;			/* enum ordma_fault */
	__le32	count;
	__le32	arg;
};

/*
 * Firmware update (ORDMA_DEV_CAP_FLASH).  FLASH_WRITE hands the device a
 * firmware image (<linux/ordma/ordma_image.h>) in order, up to
 * ORDMA_AQ_MAX_BUF bytes a command: offset is the number of bytes
 * written before, and 0 starts a new image.  FLASH_COMMIT ends it: the
 * device checks the image (size, structure, signing key, signature,
 * board, entry-table and interface versions) and stores it in the slot
 * that is not running, which becomes the pending slot.  The image that
 * runs is never written.  A refused image completes FLASH_COMMIT with
 * BAD_PARAM and ORDMA_SYNDROME_IMAGE_BASE + its enum ordma_image_error
 * as the syndrome; the pending slot, if any, is kept.  FW_ACTIVATE makes the
 * pending slot run from the next reset (CTRL.RESET or a function level
 * reset); if its image does not boot there, the device runs the image
 * it ran before.  QUERY_FLASH (struct ordma_cmd_query_buf, port 0)
 * writes struct ordma_flash_info.
 */
struct ordma_cmd_flash_write {
	__le64	buf_addr;		/* DMA address, 8-byte aligned */
	__le32	buf_len;		/* 1..ORDMA_AQ_MAX_BUF */
	__le32	offset;			/* bytes of the image written before */
};

struct ordma_cmd_flash_commit {
	__le32	image_size;		/* bytes written in all */
};

enum ordma_flash_slot_state {
	ORDMA_FLASH_SLOT_EMPTY		= 0,
	ORDMA_FLASH_SLOT_VALID		= 1,	/* an image that verifies */
	ORDMA_FLASH_SLOT_INVALID	= 2,	/* an image that does not */
};

enum ordma_flash_activation {
	ORDMA_FLASH_ACTIVATION_NONE	= 0,
	ORDMA_FLASH_ACTIVATION_REQUESTED = 1,	/* at the next reset */
	ORDMA_FLASH_ACTIVATION_DONE	= 2,	/* the pending slot runs */
	ORDMA_FLASH_ACTIVATION_ROLLED_BACK = 3,	/* it did not boot */
};

struct ordma_flash_slot_info {
	__le32	state;			/* enum ordma_flash_slot_state */
	__le16	fw_major;		/* of a VALID slot's image */
	__le16	fw_minor;
	__le16	fw_sub_minor;
	__le16	reserved_a;
	__le32	fw_build;
};

struct ordma_flash_info {
	__le32	running;		/* slot of the running firmware, or
					 * ORDMA_FLASH_NO_SLOT: built in
					 */
	__le32	active;			/* slot booted at power-on */
	__le32	pending;		/* or ORDMA_FLASH_NO_SLOT */
	__le32	activation;		/* enum ordma_flash_activation */
	struct ordma_flash_slot_info slot[2];
};

#define ORDMA_FLASH_INFO_SIZE		48

enum ordma_eq_type {
	ORDMA_EQ_TYPE_ASYNC		= 0,	/* one per device, vector 0 */
	ORDMA_EQ_TYPE_COMP		= 1,
};

#define ORDMA_EQ_MIN_LOG_SIZE		4
#define ORDMA_EQ_MAX_LOG_SIZE		12

struct ordma_cmd_create_eq {
	__le64	ring_addr;		/* DMA address, 4 KiB aligned, contiguous */
	__u8	log_size;		/* entries, ORDMA_EQ_{MIN,MAX}_LOG_SIZE */
	__u8	type;			/* enum ordma_eq_type */
	__le16	vector;			/* MSI-X vector */
	__le32	reserved_12;
};

/* DESTROY_EQ, DESTROY_ETH_RING, DEL_GID, DEALLOC_UCTX, DEALLOC_PD */
struct ordma_cmd_handle {
	__le32	handle;			/* eqn, ring id, GID index, uctx, pdn */
	__le32	uctx;			/* DEALLOC_PD: owning uctx; else 0 */
};

enum ordma_eth_ring_type {
	ORDMA_ETH_RING_TX		= 0,
	ORDMA_ETH_RING_RX		= 1,
};

#define ORDMA_ETH_RING_MIN_LOG_SIZE	4
#define ORDMA_ETH_RING_MAX_LOG_SIZE	12

struct ordma_cmd_create_eth_ring {
	__le64	ring_addr;		/* DMA address, 4 KiB aligned, contiguous */
	__u8	log_size;		/* ORDMA_ETH_RING_{MIN,MAX}_LOG_SIZE */
	__u8	type;			/* enum ordma_eth_ring_type */
	__le16	reserved_10;
	__le32	eqn;			/* completion EQ for ring events */
};

enum ordma_gid_type {
	ORDMA_GID_TYPE_ROCE_V1		= 0,	/* not supported */
	ORDMA_GID_TYPE_ROCE_V2		= 1,
	/* an iWARP port's IP address (IPv4 only so far, one at a time):
	 * the address its TCP offload answers and connects from
	 */
	ORDMA_GID_TYPE_IP		= 2,
};

struct ordma_cmd_add_gid {
	__le32	index;			/* < gid_table_len */
	__u8	type;			/* enum ordma_gid_type */
	__u8	reserved_5;
	__le16	vlan_id;		/* 0..4095 or ORDMA_VLAN_NONE */
	__u8	gid[16];		/* network order; IPv4 as ::ffff:a.b.c.d */
	__u8	mac[6];			/* source MAC for frames from this GID */
	__le16	reserved_30;
};

/*
 * PROCESS_MAD (InfiniBand ports only): the device's subnet management
 * agent (classes SubnLID-routed and SubnDirectedRoute) and performance
 * management agent (PerfMgt) answer one MAD, as the IB core's
 * process_mad() asks of a driver.  The parameter buffer (the layout of
 * struct ordma_cmd_buf) is ORDMA_MAD_BUF_SIZE bytes: the device reads the
 * request MAD from its first ORDMA_MAD_SIZE bytes once and, if it
 * answers, writes the response MAD to the second half and reports
 * ORDMA_MAD_BUF_SIZE bytes written (else 0).  slid and sl are those of
 * the packet that carried the MAD; ORDMA_MAD_FLAG_LOCAL says it did not
 * come off the wire but from this host's own stack (a subnet manager on
 * this host talking to its own port); ORDMA_MAD_FLAG_IGNORE_MKEY is the
 * IB core's IB_MAD_IGNORE_MKEY.  The completion's process_mad.result is
 * made of ORDMA_MAD_RESULT_* bits, as IB_MAD_RESULT_* are.
 */
#define ORDMA_MAD_SIZE			256
#define ORDMA_MAD_BUF_SIZE		(2 * ORDMA_MAD_SIZE)
#define ORDMA_MAD_FLAG_LOCAL		BIT(0)
#define ORDMA_MAD_FLAG_IGNORE_MKEY	BIT(1)
#define ORDMA_MAD_FLAGS_ALL		GENMASK(1, 0)

struct ordma_cmd_process_mad {
	__le64	buf_addr;		/* DMA address, 8-byte aligned */
	__le32	buf_len;		/* ORDMA_MAD_BUF_SIZE */
	__le32	port;			/* 1 */
	__le16	slid;			/* the received packet's source LID */
	__u8	sl;			/* its SL, 0..15 */
	__u8	flags;			/* ORDMA_MAD_FLAG_* */
	__le32	reserved_20;
};

/*
 * MODIFY_IB_PORT (InfiniBand ports only): the capabilities the host's own
 * management agents add to PortInfo's CapabilityMask (IB_PORT_CM_SUP and
 * the like, bits of ORDMA_IB_PORT_HOST_CAPS); set_cap_mask and
 * clr_cap_mask must not both name a bit.
 */
/*
 * SET_RDMA_PROTOCOL (Ethernet ports with ORDMA_DEV_CAP_IWARP): the RDMA
 * protocol the port's engine speaks.  Refused with BUSY while any user
 * context, PD, CQ, QP, SRQ, MR, MW, AH, multicast group or GID exists;
 * choosing the protocol the port already has always succeeds.  A device
 * reset returns the port to RoCEv2.
 */
enum ordma_port_proto {
	ORDMA_PORT_PROTO_ROCE		= 0,	/* RoCEv2, the default */
	ORDMA_PORT_PROTO_IWARP		= 1,	/* RC only; no UD, UC, atomics */
};

struct ordma_cmd_set_rdma_protocol {
	__le32	port;			/* 1 */
	__u8	protocol;		/* enum ordma_port_proto */
	__u8	reserved_5;
	__le16	reserved_6;
};

/*
 * iWARP connections (an iWARP port, SET_RDMA_PROTOCOL): TCP in the
 * device, MPA revision 2 with enhanced connection establishment (CRC on,
 * markers off, an RTR by zero-length RDMA Write), private data of
 * ORDMA_IW_MAX_PRIVATE_DATA bytes at most.  Addresses are 16 bytes in
 * network order, IPv4 as ::ffff:a.b.c.d (IPv4 only so far); ports and
 * the other fields are in CPU order of the little-endian device.
 *
 * IW_CREATE_LISTEN answers connection requests to (ip, port) (ip all
 * zero: the port's address); the completion's handle is the listener.
 * BUSY if the TCP port is taken, NO_RESOURCES if the device has no
 * TCP offload free or no listener left.  Each request is an
 * ORDMA_EQE_IW_CONN_REQUEST with a connection handle, to be answered
 * by IW_ACCEPT or IW_REJECT; at most backlog requests wait at once
 * (further SYNs go unanswered).  IW_DESTROY_LISTEN (handle) resets the
 * connections still waiting.
 *
 * IW_CONNECT, IW_ACCEPT and IW_REJECT take struct ordma_iw_conn_params
 * in a parameter buffer (struct ordma_cmd_buf, handle 0).  IW_CONNECT
 * answers at once with the connection's handle (the completion's
 * handle); its outcome is one ORDMA_EQE_IW_CONN_REPLY.  The QP of
 * IW_CONNECT and IW_ACCEPT is an RC QP of the port in RTR, not yet
 * connected; it moves to RTS when the connection is established and to
 * ERR when it ends.  IW_REJECT sends the reject with its private data
 * and closes.  IW_QUERY_CONN (a query buffer, handle) answers struct
 * ordma_iw_conn_info.  IW_DESTROY_CONN (handle) ends a connection and
 * frees its handle at once, no event following: with
 * ORDMA_IW_CLOSE_GRACEFUL in flags by FIN after what was sent (an
 * established connection), else by RST; its QP goes to ERR.  A
 * connection the peer or TCP ends gives ORDMA_EQE_IW_CLOSED (or, before
 * it was established on the active side, ORDMA_EQE_IW_CONN_REPLY) and
 * its handle is free when the event is posted; its QP goes to ERR.
 *
 * Except a rejected connect: ORDMA_EQE_IW_CONN_REPLY status REJECTED
 * leaves the handle in use, the connection in state CLOSED with no TCP
 * and no QP (the QP is in ERR and free to be reused), so that
 * IW_QUERY_CONN gives the reject's private data, MPA revision and flags,
 * addresses and ports; IW_DESTROY_CONN (any flags) then frees it.  A
 * driver must free every such handle.  The device keeps at most
 * ORDMA_IW_MAX_REJECTED of them: a newer reject frees the oldest kept
 * (whose handle then is BAD_HANDLE, as any freed one), and a reset or a
 * change of the port's address frees them all.
 *
 * A connection handle is the device's name for one connection, opaque
 * to the driver (which must not decode it): the device never gives a
 * freed handle to a later connection (so far as 32 bits allow: 2^24
 * connections through the same slot), so an event of a connection that
 * ended names no live one, and a command naming it fails with
 * BAD_HANDLE.
 */
#define ORDMA_IW_MAX_PRIVATE_DATA	252
#define ORDMA_IW_MAX_BACKLOG		64
#define ORDMA_IW_MAX_REJECTED		16
#define ORDMA_IW_CLOSE_GRACEFUL		BIT(0)

struct ordma_cmd_iw_create_listen {
	__u8	ip[16];
	__le16	port;			/* not 0 */
	__le16	backlog;		/* 1..ORDMA_IW_MAX_BACKLOG */
	__le32	reserved_20;
};

struct ordma_cmd_iw_conn {
	__le32	handle;			/* listener or connection */
	__le32	flags;			/* DESTROY_CONN: ORDMA_IW_CLOSE_* */
	__le64	reserved_8;
};

struct ordma_iw_conn_params {
	__u8	local_ip[16];		/* CONNECT: the port's address */
	__u8	remote_ip[16];		/* CONNECT */
	__le16	local_port;		/* CONNECT: 0: the device picks one */
	__le16	remote_port;		/* CONNECT */
	__le32	qpn;			/* CONNECT, ACCEPT */
	__le32	conn;			/* ACCEPT, REJECT: the request */
	__le16	ird;			/* CONNECT, ACCEPT: RDMA Reads the QP */
	__le16	ord;			/* takes and issues at once */
	__u8	next_hop_mac[6];	/* CONNECT: MAC the segments go to */
	__u8	private_data_len;	/* 0..ORDMA_IW_MAX_PRIVATE_DATA */
	__u8	reserved_55;
	__le64	reserved_56;
	__u8	private_data[256];
};

/* IW_QUERY_CONN: the connection as the device sees it */
enum ordma_iw_conn_state {
	ORDMA_IW_CONN_CONNECTING	= 1,	/* TCP or MPA under way */
	ORDMA_IW_CONN_REQUEST		= 2,	/* waits for ACCEPT/REJECT */
	ORDMA_IW_CONN_ACCEPTING		= 3,	/* reply sent, RTR awaited */
	ORDMA_IW_CONN_ESTABLISHED	= 4,
	ORDMA_IW_CONN_CLOSING		= 5,
	ORDMA_IW_CONN_CLOSED		= 6,
};

struct ordma_iw_conn_info {
	__u8	local_ip[16];
	__u8	remote_ip[16];
	__le16	local_port;
	__le16	remote_port;
	__u8	state;			/* enum ordma_iw_conn_state */
	__u8	mpa_revision;		/* of the peer's request or reply */
	__u8	mpa_flags;		/* its flag byte: 0x80 markers,
					 * 0x40 CRC, 0x20 reject, 0x10 enhanced
					 */
	__u8	private_data_len;	/* received, up to 255 */
	__le32	qpn;
	__le16	ird;			/* negotiated */
	__le16	ord;
	__le16	peer_ird;		/* the peer's MPA words, 0x3fff: none */
	__le16	peer_ord;
	__le16	mss;			/* TCP's effective send MSS */
	__le16	tcp_state;		/* TCP's state (lwIP's numbering) */
	__le32	tcp_retransmits;	/* of the oldest segment in flight */
	__le32	reserved_60;
	__u8	private_data[256];	/* received (a request, or a reply or
					 * reject)
					 */
};

/* ORDMA_EQE_IW_CONN_REPLY and ORDMA_EQE_IW_CLOSED status */
enum ordma_iw_status {
	ORDMA_IW_STATUS_OK		= 0,
	ORDMA_IW_STATUS_REJECTED	= 1,	/* MPA reject; private data by
						 * IW_QUERY_CONN until
						 * IW_DESTROY_CONN
						 */
	ORDMA_IW_STATUS_RESET		= 2,	/* RST, or refused by RST */
	ORDMA_IW_STATUS_TIMEOUT		= 3,	/* TCP or MPA timer */
	ORDMA_IW_STATUS_PROTOCOL	= 4,	/* malformed MPA, or what we
						 * cannot agree on
						 */
	ORDMA_IW_STATUS_NO_RESOURCES	= 5,
	ORDMA_IW_STATUS_GRACEFUL	= 6,	/* CLOSED: FIN both ways */
	ORDMA_IW_STATUS_LOCAL		= 7,	/* CLOSED: IW_DESTROY_CONN */
};

struct ordma_cmd_modify_ib_port {
	__le32	port;			/* 1 */
	__le32	set_cap_mask;
	__le32	clr_cap_mask;
	__le32	reserved_12;
};

/*
 * SET_NODE_DESC (InfiniBand ports only): the node description the subnet
 * management agent answers in NodeDescription, ORDMA_NODE_DESC_SIZE bytes
 * in a parameter buffer (the layout of struct ordma_cmd_buf), padded with
 * NULs; a reset makes it the board id again.
 */
#define ORDMA_NODE_DESC_SIZE		64

struct ordma_cmd_set_node_desc {
	__le64	buf_addr;		/* DMA address, 8-byte aligned */
	__le32	buf_len;		/* ORDMA_NODE_DESC_SIZE */
	__le32	port;			/* 1 */
};

/* The CapabilityMask bits a host may set: a subnet manager (1), and
 * communication management (16), SNMP tunneling (17), device management
 * (19), vendor class (20) and boot management (23)
 */
#define ORDMA_IB_PORT_HOST_CAPS		(BIT(1) | BIT(16) | BIT(17) | \
					 BIT(19) | BIT(20) | BIT(23))

/* The MAD was looked at: without REPLY or CONSUMED it is not the
 * device's to answer and goes on to the host's agents.
 */
#define ORDMA_MAD_RESULT_SUCCESS	BIT(0)
#define ORDMA_MAD_RESULT_REPLY		BIT(1)	/* out_addr holds a response
						 * to send back
						 */
#define ORDMA_MAD_RESULT_CONSUMED	BIT(2)	/* handled or dropped: no
						 * one else sees it
						 */

/* Why the device dropped a MAD without a response */
enum ordma_mad_drop {
	ORDMA_MAD_DROP_NONE		= 0,
	ORDMA_MAD_DROP_MKEY		= 1,	/* M_Key violation (counted
						 * in PortInfo M_KeyViolations)
						 */
	ORDMA_MAD_DROP_DR_PATH		= 2,	/* directed route hop pointer,
						 * hop count or direction
						 */
};

/*
 * ORDMA_EQE_PORT_CHANGE data[2] of an InfiniBand port: what changed
 * (data[1] is the port state in any case).  0 on an Ethernet port.
 */
#define ORDMA_PORT_CHANGE_STATE		BIT(0)
#define ORDMA_PORT_CHANGE_LID		BIT(1)	/* LID or LMC */
#define ORDMA_PORT_CHANGE_SM		BIT(2)	/* master SM LID or SL */
#define ORDMA_PORT_CHANGE_PKEY		BIT(3)
#define ORDMA_PORT_CHANGE_GID		BIT(4)	/* GID prefix */
#define ORDMA_PORT_CHANGE_CLIENT_REREG	BIT(5)	/* the SM asks the port's
						 * clients to register again
						 */

/* ALLOC_PD */
struct ordma_cmd_alloc_pd {
	__le32	uctx;			/* owner: 0 = kernel, else ALLOC_UCTX id */
	__le32	reserved_4;
};

/* ------------------------------------------------------------------ */
/* Verbs interface (v1.1).  The firmware sets ORDMA_DEV_CAP_VERBS once   */
/* the RoCEv2 transport engine executes posted work requests.           */
/* ------------------------------------------------------------------ */

/*
 * Host buffers the device walks (queue rings, MR pages) are described by a
 * page list.  levels 0: addr is the DMA address of num_pages physically
 * contiguous pages.  levels 1: addr points to one 4 KiB table page holding
 * num_pages (<= 512) little-endian 64-bit page addresses.  levels 2: addr
 * points to a 4 KiB page of up to 512 addresses of level-1 table pages;
 * entry i of the buffer is at table[i / 512][i % 512].  Every page address
 * is aligned to 2^page_shift; table pages are 4 KiB aligned.
 */
#define ORDMA_MTT_ENTRIES_PER_PAGE	512
#define ORDMA_MTT_MAX_LEVELS		2
#define ORDMA_MIN_PAGE_SHIFT		12
#define ORDMA_MAX_PAGE_SHIFT		30

struct ordma_page_list {
	__le64	addr;
	__le32	num_pages;
	__u8	page_shift;		/* ORDMA_{MIN,MAX}_PAGE_SHIFT */
	__u8	levels;			/* 0..ORDMA_MTT_MAX_LEVELS */
	__le16	reserved_14;
};

/* Commands whose parameters do not fit the 56-byte payload name a host
 * buffer (CREATE_QP, MODIFY_QP in; QUERY_QP, QUERY_QP_STATS, QUERY_CQ out).
 */
struct ordma_cmd_buf {
	__le64	buf_addr;		/* DMA address, 8-byte aligned */
	__le32	buf_len;		/* sizeof the parameter struct */
	__le32	handle;			/* MODIFY_QP/QUERY_QP(_STATS): qpn;
					 * QUERY_CQ: cqn; else 0
					 */
};

#define ORDMA_MR_FAST_REG		BIT(0)	/* pages come from a REG_MR WQE */
#define ORDMA_MR_DMA			BIT(1)	/* kernel only: iova = DMA addr */
/* Re-register the MR rereg_key names in place: it takes this command's
 * PD, iova, length, pages and access and keeps its key.
 */
#define ORDMA_MR_REREG			BIT(2)

struct ordma_cmd_reg_mr {
	__le32	pdn;
	__le32	uctx;
	__le64	iova;
	__le64	length;
	struct ordma_page_list pages;	/* unused (zero) for FAST_REG/DMA */
	__le32	access;			/* ORDMA_ACCESS_* */
	__u8	key;			/* ORDMA_KEY_VARIANT of the new key */
	__u8	flags;			/* ORDMA_MR_* */
	__le16	max_pages;		/* FAST_REG: page list capacity */
	__le32	rereg_key;		/* REREG: the MR's key, else 0 */
	__le32	reserved_52;
};

/* Memory windows share the key space of MRs: rkey = index << 8 | key. */
enum ordma_mw_type {
	ORDMA_MW_TYPE_1			= 1,	/* bound by BIND_MW, on any QP of the PD */
	ORDMA_MW_TYPE_2			= 2,	/* bound to one QP, invalidatable */
};

struct ordma_cmd_alloc_mw {
	__le32	pdn;
	__le32	uctx;
	__u8	type;			/* enum ordma_mw_type */
	__u8	key;			/* ORDMA_KEY_VARIANT of the first rkey */
	__le16	reserved_10;
	__le32	reserved_12;
};

struct ordma_cmd_create_cq {
	__le32	uctx;
	__le32	eqn;			/* completion EQ for this CQ's events */
	struct ordma_page_list ring;	/* 2^log_size CQEs */
	__le64	db_record;		/* DMA address of the consumer's __le32 ci */
	__u8	log_size;		/* 1..16 */
	__u8	reserved_33;
	__le16	reserved_34;
	__le32	reserved_36;
};

/* QUERY_CQ: the CQ as the device holds it */
#define ORDMA_CQ_ATTR_ARMED		BIT(0)	/* next CQE posts COMP */
#define ORDMA_CQ_ATTR_ARM_SOLICITED	BIT(1)	/* ... if solicited or an error */
#define ORDMA_CQ_ATTR_ERROR		BIT(2)	/* overrun: takes no more CQEs */

struct ordma_cq_attr {
	__le32	uctx;
	__le32	eqn;
	__le32	pi;			/* CQEs written, free running */
	__le32	ci;			/* consumer index as last read */
	__le32	refs;			/* QPs and SRQs completing into it */
	__u8	log_size;
	__u8	flags;			/* ORDMA_CQ_ATTR_* */
	__le16	reserved_22;
	__le64	db_record;		/* as CREATE_CQ gave it */
};

#define ORDMA_NO_SRQ			0xffffffff

enum ordma_qp_type {
	ORDMA_QPT_RC			= 0,
	ORDMA_QPT_UD			= 1,
	ORDMA_QPT_UC			= 2,
	/* The port's general services QP: UD semantics, always QPN 1,
	 * kernel only, one per port.
	 */
	ORDMA_QPT_GSI			= 3,
	/* An InfiniBand port's subnet management QP: UD semantics on VL15,
	 * always QPN 0, kernel only, one per port (ORDMA_DEV_CAP_SMI).
	 */
	ORDMA_QPT_SMI			= 4,
};

#define ORDMA_SMI_QPN			0
#define ORDMA_GSI_QPN			1
#define ORDMA_GSI_QKEY			0x80010000
#define ORDMA_MCAST_QPN			0xffffff

struct ordma_cmd_create_srq {
	__le32	uctx;
	__le32	pdn;
	struct ordma_page_list ring;	/* 2^log_size receive WQEs */
	__u8	log_size;
	__u8	wqe_shift;		/* log2 of the receive WQE size */
	__le16	reserved_26;
	__le32	limit;			/* SRQ_LIMIT event threshold, 0 = off */
	__le32	cqn;			/* reserved (XRC), 0 */
	__le32	reserved_36;
};

struct ordma_cmd_modify_srq {
	__le32	srqn;
	__le32	uctx;
	__le32	limit;			/* re-arms the limit event */
	__le32	reserved_12;
};

struct ordma_qp_create_params {
	__le32	uctx;
	__le32	pdn;
	__le32	send_cqn;
	__le32	recv_cqn;
	__le32	srqn;			/* ORDMA_NO_SRQ if the QP has an RQ */
	__u8	type;			/* enum ordma_qp_type */
	__u8	sq_log_size;		/* WQEs */
	__u8	rq_log_size;		/* WQEs, 0 with an SRQ */
	__u8	sq_wqe_shift;		/* 6..9: send WQE is 64..512 bytes */
	__u8	rq_wqe_shift;		/* 5..8: receive WQE is 32..256 bytes */
	__u8	reserved_25;
	__le16	reserved_26;
	__le32	max_inline_data;
	struct ordma_page_list sq;
	struct ordma_page_list rq;	/* zero with an SRQ */
};

/* MODIFY_QP attribute mask: bits as in IBTA/ib_verbs (enum ib_qp_attr_mask) */
#define ORDMA_QP_ATTR_STATE		BIT(0)
#define ORDMA_QP_ATTR_CUR_STATE		BIT(1)
#define ORDMA_QP_ATTR_EN_SQD_ASYNC	BIT(2)
#define ORDMA_QP_ATTR_ACCESS_FLAGS	BIT(3)
#define ORDMA_QP_ATTR_PKEY_INDEX	BIT(4)
#define ORDMA_QP_ATTR_PORT		BIT(5)
#define ORDMA_QP_ATTR_QKEY		BIT(6)
#define ORDMA_QP_ATTR_AV		BIT(7)
#define ORDMA_QP_ATTR_PATH_MTU		BIT(8)
#define ORDMA_QP_ATTR_TIMEOUT		BIT(9)
#define ORDMA_QP_ATTR_RETRY_CNT		BIT(10)
#define ORDMA_QP_ATTR_RNR_RETRY		BIT(11)
#define ORDMA_QP_ATTR_RQ_PSN		BIT(12)
#define ORDMA_QP_ATTR_MAX_QP_RD_ATOMIC	BIT(13)
#define ORDMA_QP_ATTR_ALT_PATH		BIT(14)	/* not supported */
#define ORDMA_QP_ATTR_MIN_RNR_TIMER	BIT(15)
#define ORDMA_QP_ATTR_SQ_PSN		BIT(16)
#define ORDMA_QP_ATTR_MAX_DEST_RD_ATOMIC BIT(17)
#define ORDMA_QP_ATTR_PATH_MIG_STATE	BIT(18)	/* not supported */
#define ORDMA_QP_ATTR_CAP		BIT(19)	/* not supported */
#define ORDMA_QP_ATTR_DEST_QPN		BIT(20)
#define ORDMA_QP_ATTR_SUPPORTED		(GENMASK(13, 0) | GENMASK(17, 15) | \
					 ORDMA_QP_ATTR_DEST_QPN)

struct ordma_qp_attr {
	__le32	attr_mask;		/* ORDMA_QP_ATTR_*, MODIFY_QP only */
	__u8	state;			/* enum ordma_qp_state */
	__u8	cur_state;
	__u8	path_mtu;		/* IB enum: 1 = 256 .. 5 = 4096 */
	__u8	en_sqd_async_notify;
	__le32	access_flags;		/* ORDMA_ACCESS_REMOTE_* */
	__le32	qkey;
	__le32	rq_psn;			/* 24 bits */
	__le32	sq_psn;			/* 24 bits */
	__le32	dest_qpn;		/* 24 bits */
	__u8	timeout;		/* local ACK timeout: 4.096 us * 2^n, 0 = off */
	__u8	retry_cnt;		/* 0..7 */
	__u8	rnr_retry;		/* 0..7, 7 = infinite */
	__u8	min_rnr_timer;		/* IB encoding 0..31 */
	__u8	max_rd_atomic;		/* initiator depth */
	__u8	max_dest_rd_atomic;	/* responder depth */
	__le16	pkey_index;		/* 0 */
	__u8	port;			/* 1 */
	__u8	sq_draining;		/* QUERY_QP: SQD drain in progress */
	__le16	reserved_38;
	struct ordma_av av;
};

/* QP states (IBTA 10.3.1) */
enum ordma_qp_state {
	ORDMA_QPS_RESET			= 0,
	ORDMA_QPS_INIT			= 1,
	ORDMA_QPS_RTR			= 2,
	ORDMA_QPS_RTS			= 3,
	ORDMA_QPS_SQD			= 4,
	ORDMA_QPS_SQE			= 5,
	ORDMA_QPS_ERR			= 6,
};

struct ordma_cmd_create_ah {
	__le32	pdn;
	__le32	uctx;
	struct ordma_av av;
	__le32	reserved_40;
	__le32	reserved_44;
};

/* ATTACH_MCAST, DETACH_MCAST: a UD QP joins or leaves a multicast GID */
struct ordma_cmd_mcast {
	__le32	qpn;
	__le32	uctx;
	__u8	gid[16];		/* network order; IPv4 as ::ffff:a.b.c.d */
	__le64	reserved_24;
};

struct ordma_aq_cmd {
	struct ordma_aq_cmd_hdr hdr;
	union {
		struct ordma_cmd_query_buf	query;
		struct ordma_cmd_set_port	set_port;
		struct ordma_cmd_create_eq	create_eq;
		struct ordma_cmd_handle		handle;
		struct ordma_cmd_create_eth_ring eth_ring;
		struct ordma_cmd_add_gid	add_gid;
		struct ordma_cmd_alloc_pd	alloc_pd;
		struct ordma_cmd_buf		buf;
		struct ordma_cmd_reg_mr		reg_mr;
		struct ordma_cmd_create_cq	create_cq;
		struct ordma_cmd_create_srq	create_srq;
		struct ordma_cmd_modify_srq	modify_srq;
		struct ordma_cmd_create_ah	create_ah;
		struct ordma_cmd_alloc_mw	alloc_mw;
		struct ordma_cmd_mcast		mcast;
		struct ordma_cmd_inject_fault	inject_fault;
		struct ordma_cmd_flash_write	flash_write;
		struct ordma_cmd_flash_commit	flash_commit;
		struct ordma_cmd_process_mad	process_mad;
		struct ordma_cmd_modify_ib_port	modify_ib_port;
		struct ordma_cmd_set_node_desc	set_node_desc;
		struct ordma_cmd_set_rdma_protocol set_rdma_protocol;
		struct ordma_cmd_iw_create_listen iw_create_listen;
		struct ordma_cmd_iw_conn	iw_conn;
		__u8				raw[56];
	};
};

/* Completion outputs (20 bytes at most) */
struct ordma_comp_query_fw {
	__le16	major;
	__le16	minor;
	__le16	sub_minor;
	__le16	reserved_6;
	__le32	build;
	__le32	hw_version;		/* same encoding as ORDMA_REG_VERSION */
};

struct ordma_comp_handle {
	__le32	handle;			/* eqn, ring id, uctx, pdn */
	__le32	db_page;		/* ALLOC_UCTX: doorbell page index */
};

struct ordma_comp_buf {
	__le32	written;		/* bytes written to the query buffer */
};

struct ordma_comp_process_mad {
	__le32	written;		/* as struct ordma_comp_buf */
	__le32	result;			/* ORDMA_MAD_RESULT_* */
	__le32	drop;			/* enum ordma_mad_drop */
};

enum ordma_health_state {
	ORDMA_HEALTH_OK			= 0,
	ORDMA_HEALTH_DEGRADED		= 1,	/* errors counted since reset */
	ORDMA_HEALTH_FATAL		= 2,
};

struct ordma_comp_health {
	__le32	state;			/* enum ordma_health_state */
	__le32	heartbeat;
	__le32	cmd_errors;		/* commands completed with status != OK */
	__le32	db_errors;		/* rejected doorbell writes */
	__le32	eq_overruns;		/* events dropped on a full EQ */
};

#define ORDMA_COMP_PHASE		BIT(31)

struct ordma_aq_comp {
	__le16	token;
	__u8	status;			/* enum ordma_cmd_status */
	__u8	reserved_3;
	__le32	syndrome;		/* BAD_PARAM: offset of the bad field */
	union {
		struct ordma_comp_query_fw	query_fw;
		struct ordma_comp_handle	handle;
		struct ordma_comp_buf		buf;
		struct ordma_comp_health	health;
		struct ordma_comp_process_mad	process_mad;
		__u8				raw[20];
	};
	__le32	flags;			/* ORDMA_COMP_PHASE; written last */
};

/* ------------------------------------------------------------------ */
/* Query buffers                                                       */
/* ------------------------------------------------------------------ */

#define ORDMA_DEV_CAP_RC		BIT(0)
#define ORDMA_DEV_CAP_UD		BIT(1)
#define ORDMA_DEV_CAP_UC		BIT(2)
#define ORDMA_DEV_CAP_SRQ		BIT(3)
#define ORDMA_DEV_CAP_ATOMIC		BIT(4)
#define ORDMA_DEV_CAP_FAST_REG		BIT(5)
#define ORDMA_DEV_CAP_VERBS		BIT(6)	/* v1.1 verbs commands present */
#define ORDMA_DEV_CAP_MW		BIT(7)	/* ALLOC_MW, BIND_MW: types 1, 2 */
#define ORDMA_DEV_CAP_GSI		BIT(8)	/* ORDMA_QPT_GSI, inline AV */
#define ORDMA_DEV_CAP_MCAST		BIT(9)	/* ATTACH_MCAST on UD QPs */
#define ORDMA_DEV_CAP_FLUSH		BIT(10)	/* FLUSH WQE, global + persistent */
#define ORDMA_DEV_CAP_ATOMIC_WRITE	BIT(11)	/* ATOMIC_WRITE WQE */
#define ORDMA_DEV_CAP_FAULT_INJECT	BIT(12)	/* INJECT_FAULT */
#define ORDMA_DEV_CAP_FLASH		BIT(13)	/* FLASH_*, QUERY_FLASH, FW_ACTIVATE */
#define ORDMA_DEV_CAP_SMI		BIT(14)	/* InfiniBand port: ORDMA_QPT_SMI,
						 * PROCESS_MAD
						 */
#define ORDMA_DEV_CAP_IWARP		BIT(15)	/* Ethernet port: SET_RDMA_PROTOCOL
						 * to iWARP
						 */

struct ordma_device_caps {
	__be64	node_guid;		/* EUI-64 of the factory MAC */
	__be64	sys_image_guid;
	__le64	max_mr_size;
	__le64	page_size_cap;		/* bit n set: 2^n byte MR pages */
	__le32	vendor_id;
	__le32	vendor_part_id;
	__le32	hw_rev;
	__le32	cap_flags;		/* ORDMA_DEV_CAP_* */
	__le32	max_qp;
	__le32	max_qp_wr;
	__le32	max_send_sge;
	__le32	max_recv_sge;
	__le32	max_sge_rd;
	__le32	max_cq;
	__le32	max_cqe;
	__le32	max_mr;
	__le32	max_pd;
	__le32	max_srq;
	__le32	max_srq_wr;
	__le32	max_srq_sge;
	__le32	max_ah;
	__le32	max_qp_rd_atom;
	__le32	max_qp_init_rd_atom;
	__le32	max_inline_data;
	__le32	max_eq;
	__le32	max_uctx;
	__le32	max_msg_size;
	__le32	max_eth_mtu;
	__le32	num_ports;
	__le32	gid_table_len;
	__le32	pkey_table_len;
	__le32	local_ca_ack_delay;
	__le32	max_eth_rings;
	__le32	max_mw;
	__u8	serial[16];		/* ASCII, NUL padded */
	__u8	board_id[16];		/* ASCII, NUL padded */
	__le32	max_mcast_grp;
	__le32	max_mcast_qp_attach;	/* QPs per group */
	__le32	max_total_mcast_qp_attach;
	__u8	rdma_protocol;		/* enum ordma_port_proto of port 1 */
	__u8	reserved_197;
	__le16	reserved_198;
};

/* The IBTA's logical port states; an Ethernet port is DOWN or ACTIVE */
enum ordma_port_state {
	ORDMA_PORT_DOWN			= 1,
	ORDMA_PORT_INIT			= 2,	/* InfiniBand: link up, no SM yet */
	ORDMA_PORT_ARMED		= 3,
	ORDMA_PORT_ACTIVE		= 4,
};

/* What the port carries, chosen when the device is configured */
enum ordma_link_layer {
	ORDMA_LINK_LAYER_ETHERNET	= 0,	/* RoCEv2 and the netdev's frames */
	ORDMA_LINK_LAYER_INFINIBAND	= 1,
};

enum ordma_port_phys_state {
	ORDMA_PORT_PHYS_POLLING		= 2,	/* admin up, no link */
	ORDMA_PORT_PHYS_DISABLED	= 3,	/* admin down */
	ORDMA_PORT_PHYS_LINK_UP		= 5,
};

struct ordma_port_attr {
	__u8	mac[6];
	__u8	state;			/* enum ordma_port_state */
	__u8	phys_state;		/* enum ordma_port_phys_state */
	__le32	mtu;			/* Ethernet MTU */
	__le32	max_mtu;		/* largest Ethernet MTU */
	__le32	active_ib_mtu;		/* largest RoCE path MTU for mtu, bytes */
	__le32	max_ib_mtu;		/* bytes */
	__le32	speed_mbps;
	__u8	admin_up;
	__u8	link_up;
	__u8	rx_mode;
	__u8	link_layer;		/* enum ordma_link_layer */
	__le32	gid_table_len;
	__le16	lid;			/* InfiniBand: 0 until the SM sets it */
	__le16	sm_lid;			/* InfiniBand: 0 until the SM sets it */
	/* InfiniBand only (zero on Ethernet): PortInfo as the SM set it */
	__u8	lmc;			/* LID mask control, 0..7 */
	__u8	sm_sl;			/* SL to reach the master SM */
	__u8	subnet_timeout;
	__u8	pkey_table_len;		/* 1: the table is pkey below */
	__le32	port_cap_flags;		/* PortInfo CapabilityMask (IB_PORT_*) */
	__be64	gid_prefix;		/* GID subnet prefix, fe80::/64 until set */
	__be64	port_guid;		/* the GID's interface ID */
	__le32	max_vl_num;		/* 1: VL0, 2: VL0-1, 3: VL0-3, 4: VL0-7 */
	__le16	pkey;			/* P_Key table entry 0 (0xffff default) */
	__u8	rdma_protocol;		/* enum ordma_port_proto; 0 on InfiniBand */
	__u8	reserved_71;
};

/* QUERY_STATS: why the RoCE engine dropped a received frame, the index of
 * ordma_port_stats.roce_rx_drop_reason[].  Every such drop also counts in
 * roce_rx_drop.
 */
enum ordma_roce_rx_drop {
	ORDMA_ROCE_RX_DROP_PARSE	= 0,	/* not a RoCEv2 packet: see
						 * roce_rx_parse_drop[]
						 */
	ORDMA_ROCE_RX_DROP_NO_QP	= 1,	/* destination QP does not exist */
	ORDMA_ROCE_RX_DROP_TRANSPORT	= 2,	/* opcode of another transport */
	ORDMA_ROCE_RX_DROP_STATE	= 3,	/* QP state does not take it */
	ORDMA_ROCE_RX_DROP_PKEY		= 4,
	ORDMA_ROCE_RX_DROP_SRC		= 5,	/* RC: source is not the peer */
	ORDMA_ROCE_RX_DROP_QKEY		= 6,	/* UD: Q_Key mismatch */
	ORDMA_ROCE_RX_DROP_NO_RECV	= 7,	/* UD, UC: no receive WQE */
	ORDMA_ROCE_RX_DROP_UD_LEN	= 8,	/* UD: payload above path MTU */
	ORDMA_ROCE_RX_DROP_SEQ		= 9,	/* PSN ahead, or UC message lost */
	ORDMA_ROCE_RX_DROP_DUP		= 10,	/* duplicate not answered */
	ORDMA_ROCE_RX_DROP_OPCODE_SEQ	= 11,	/* opcode out of sequence */
	ORDMA_ROCE_RX_DROP_BAD_REQ	= 12,	/* malformed or not permitted */
	ORDMA_ROCE_RX_DROP_RNR		= 13,	/* answered with an RNR NAK */
	ORDMA_ROCE_RX_DROP_RESP		= 14,	/* unexpected or stale response */
};

#define ORDMA_ROCE_RX_DROP_REASONS	15

/* QUERY_STATS: why a frame steered to the RoCE engine is not a RoCEv2
 * packet, the index of ordma_port_stats.roce_rx_parse_drop[]
 */
enum ordma_roce_parse_drop {
	ORDMA_ROCE_PARSE_ETH_SHORT	= 0,	/* no room for Ethernet (+ VLAN) */
	ORDMA_ROCE_PARSE_ETHERTYPE	= 1,	/* not IPv4/IPv6 behind <= 1 tag */
	ORDMA_ROCE_PARSE_IPV4_SHORT	= 2,
	ORDMA_ROCE_PARSE_IPV4_VERSION	= 3,
	ORDMA_ROCE_PARSE_IPV4_IHL	= 4,
	ORDMA_ROCE_PARSE_IPV4_LENGTH	= 5,
	ORDMA_ROCE_PARSE_IPV4_CHECKSUM	= 6,
	ORDMA_ROCE_PARSE_IPV4_FRAGMENT	= 7,
	ORDMA_ROCE_PARSE_IPV6_SHORT	= 8,
	ORDMA_ROCE_PARSE_IPV6_VERSION	= 9,
	ORDMA_ROCE_PARSE_IPV6_LENGTH	= 10,
	ORDMA_ROCE_PARSE_IP_PROTO	= 11,	/* not UDP */
	ORDMA_ROCE_PARSE_UDP_SHORT	= 12,
	ORDMA_ROCE_PARSE_UDP_PORT	= 13,	/* destination port not 4791 */
	ORDMA_ROCE_PARSE_UDP_LENGTH	= 14,
	ORDMA_ROCE_PARSE_UDP_CHECKSUM	= 15,
	ORDMA_ROCE_PARSE_BTH_SHORT	= 16,
	ORDMA_ROCE_PARSE_TVER		= 17,	/* BTH version not 0 */
	ORDMA_ROCE_PARSE_OPCODE		= 18,	/* opcode the device lacks */
	ORDMA_ROCE_PARSE_EXT_SHORT	= 19,	/* no room for extension headers */
	ORDMA_ROCE_PARSE_PAD		= 20,
	ORDMA_ROCE_PARSE_ICRC		= 21,
};

#define ORDMA_ROCE_PARSE_DROP_REASONS	22

/* QUERY_STATS: why the RoCE engine did not send a frame, the index of
 * ordma_port_stats.roce_tx_drop[]
 */
enum ordma_roce_tx_drop {
	ORDMA_ROCE_TX_DROP_LINK_DOWN	= 0,
	ORDMA_ROCE_TX_DROP_TOO_LONG	= 1,	/* above the port MTU */
	ORDMA_ROCE_TX_DROP_NO_GID	= 2,	/* sgid_index names no GID */
	ORDMA_ROCE_TX_DROP_BUILD	= 3,	/* headers could not be built */
	ORDMA_ROCE_TX_DROP_DMA		= 4,	/* payload could not be read */
};

#define ORDMA_ROCE_TX_DROP_REASONS	5

/* QUERY_STATS: faults the cable's impairment model (the device model's
 * wire-* properties) injected into frames this port sent, the index of
 * ordma_port_stats.wire_fault[].  Zero on a cable without impairments.
 */
enum ordma_wire_fault {
	ORDMA_WIRE_FAULT_LOSS		= 0,	/* frames dropped */
	ORDMA_WIRE_FAULT_REORDER	= 1,	/* frames sent after a later one */
	ORDMA_WIRE_FAULT_DUP		= 2,	/* extra copies sent */
	ORDMA_WIRE_FAULT_CORRUPT	= 3,	/* RoCEv2 frames with a bit flipped */
	ORDMA_WIRE_FAULT_DELAY		= 4,	/* frames held for the delay */
};

#define ORDMA_WIRE_FAULTS		5

/* QUERY_STATS: why an InfiniBand port dropped a received packet before its
 * transport saw it, the index of ordma_port_stats.ib_rx_drop[]: the link
 * and header checks of the IB wire, then the port's DLID check.  Every
 * such drop also counts in roce_rx_drop.  Always zero on an Ethernet port.
 */
enum ordma_ib_rx_drop {
	ORDMA_IB_RX_DROP_SHORT		= 0,	/* less than LRH and VCRC */
	ORDMA_IB_RX_DROP_LVER		= 1,	/* link version not 0 */
	ORDMA_IB_RX_DROP_PKTLEN		= 2,	/* PktLen not the length */
	ORDMA_IB_RX_DROP_VCRC		= 3,
	ORDMA_IB_RX_DROP_LNH		= 4,	/* raw or IP: no transport */
	ORDMA_IB_RX_DROP_SLID		= 5,	/* SLID 0, multicast or
						 * permissive off VL15
						 */
	ORDMA_IB_RX_DROP_GRH_SHORT	= 6,
	ORDMA_IB_RX_DROP_GRH_VERSION	= 7,	/* IPVer not 6 */
	ORDMA_IB_RX_DROP_GRH_NXTHDR	= 8,	/* next header not IBA */
	ORDMA_IB_RX_DROP_GRH_PAYLEN	= 9,	/* PayLen vs PktLen */
	ORDMA_IB_RX_DROP_BTH_SHORT	= 10,
	ORDMA_IB_RX_DROP_TVER		= 11,	/* BTH version not 0 */
	ORDMA_IB_RX_DROP_OPCODE		= 12,	/* opcode the device lacks */
	ORDMA_IB_RX_DROP_EXT_SHORT	= 13,	/* no room for extension headers */
	ORDMA_IB_RX_DROP_PAD		= 14,
	ORDMA_IB_RX_DROP_VL15		= 15,	/* on VL15 but not to QP0 */
	ORDMA_IB_RX_DROP_QP0_VL		= 16,	/* to QP0 but not on VL15 */
	ORDMA_IB_RX_DROP_ICRC		= 17,
	ORDMA_IB_RX_DROP_DLID		= 18,	/* not one of the port's LIDs */
};

#define ORDMA_IB_RX_DROP_REASONS	19

struct ordma_port_stats {
	__le64	tx_frames;
	__le64	tx_bytes;
	__le64	rx_frames;
	__le64	rx_bytes;
	__le64	tx_drop_link_down;
	__le64	tx_bad_desc;
	__le64	rx_drop_no_buf;
	__le64	rx_drop_filter;
	__le64	rx_drop_too_long;
	__le64	rx_drop_link_down;
	__le64	roce_rx_frames;
	__le64	roce_rx_drop;
	__le64	roce_tx_frames;
	__le64	roce_acks_sent;
	__le64	roce_naks_sent;
	__le64	roce_retransmits;	/* requests sent again */
	__le64	roce_timeouts;		/* retry timer expiries */
	__le64	roce_rx_drop_reason[ORDMA_ROCE_RX_DROP_REASONS];
	__le64	roce_rx_parse_drop[ORDMA_ROCE_PARSE_DROP_REASONS];
	__le64	roce_tx_drop[ORDMA_ROCE_TX_DROP_REASONS];
	__le64	wire_tx_drop;		/* the cable did not take the frame */
	__le64	wire_rx_drop;		/* lost on the cable before the port */
	__le64	wire_fault[ORDMA_WIRE_FAULTS];	/* injected on transmit */
	__le64	pause_rx;		/* IEEE 802.3x PAUSE frames taken */
	__le64	roce_tx_pause_holds;	/* sends a PAUSE held back */
	/* faults INJECT_FAULT or the host injected, by enum ordma_fault
	 * (zero without ORDMA_DEV_CAP_FAULT_INJECT)
	 */
	__le64	fault_injected[ORDMA_FAULTS];
	/* InfiniBand link-layer drops, by enum ordma_ib_rx_drop (firmware
	 * before these writes only the 600 bytes before)
	 */
	__le64	ib_rx_drop[ORDMA_IB_RX_DROP_REASONS];
	/*
	 * An iWARP port's TCP offload and the MPA layer above it, from the
	 * last reset of the function (firmware before these writes only
	 * the 752 bytes before)
	 */
	__le64	iw_tcp_rx_segments;	/* taken by the TCP stack */
	__le64	iw_tcp_tx_segments;
	__le64	iw_tcp_rx_bad_checksum;	/* dropped */
	__le64	iw_tcp_rx_bad_header;	/* IP or TCP header: dropped */
	__le64	iw_tcp_rx_no_conn;	/* to a device port, no connection:
					 * answered with RST
					 */
	__le64	iw_tcp_rx_out_of_window; /* acknowledged and dropped */
	__le64	iw_tcp_rx_rst_ignored;	/* RST outside the window */
	/* RST in the window, not at rcv_nxt: challenge ACK (RFC 5961) */
	__le64	iw_tcp_rx_rst_challenged;
	__le64	iw_tcp_syn_backlog_full; /* SYN to a full listener */
	__le64	iw_tcp_tx_no_neighbour;	/* no MAC for the next hop */
	__le64	iw_tcp_tx_queue_full;
	__le64	iw_tcp_mem_errors;	/* the stack's memory ran out */
	__le64	iw_mpa_bad;		/* malformed or refused MPA messages */
	__le64	iw_mpa_rejected;	/* replies rejecting our requests */
	__le64	iw_mpa_timeouts;	/* request, reply or RTR late */
	__le64	iw_rtr_bad;		/* first FPDU not the RTR agreed */
	__le64	iw_mpa_backlog_full;	/* requests beyond a backlog */
	__le64	iw_rx_fpdus;		/* with a good CRC */
	__le64	iw_tx_fpdus;
	__le64	iw_rx_fpdu_crc_bad;	/* a Terminate followed */
	__le64	iw_rx_fpdu_bad_len;	/* a length no DDP segment has */
	/* for a QP in error or gone, or an FPDU cut short by FIN or RST */
	__le64	iw_rx_fpdu_bytes_dropped;
	__le64	iw_terminates_sent;
	__le64	iw_terminates_received;
};

#define ORDMA_PORT_STATS_SIZE		944

/* QUERY_QP_STATS handle: the sum over every QP the device ever had */
#define ORDMA_QP_STATS_ALL		0xffffffff

/*
 * QUERY_QP_STATS: what one QP (or, for ORDMA_QP_STATS_ALL, every QP)
 * counted, every field a __le64.  A QP's counters start at zero when it
 * is created and when it enters RESET.  Names follow the RDMA counters
 * of other RoCE devices where the meaning is the same.
 */
struct ordma_qp_stats {
	__le64	out_of_sequence;	/* responder: request PSN ahead */
	__le64	packet_seq_err;		/* requester: PSN sequence NAKs received */
	__le64	duplicate_request;	/* responder: duplicates received */
	__le64	rnr_nak_retry_err;	/* requester: RNR retries exhausted */
	__le64	local_ack_timeout_err;	/* requester: retry timer expiries */
	__le64	implied_nak_seq_err;	/* requester: READ response or atomic
					 * ACK not the one expected next
					 */
	__le64	rx_read_requests;	/* responder: READ requests received */
	__le64	rx_write_requests;	/* responder: WRITE messages received */
	__le64	rx_atomic_requests;	/* responder: atomics received */
	__le64	resp_remote_access_errors; /* responder: access NAKs sent */
	__le64	req_remote_access_errors; /* requester: access NAKs received */
	__le64	req_cqe_flush_error;	/* send WQEs completed as flushed */
	__le64	resp_cqe_flush_error;	/* receive WQEs completed as flushed */
	__le64	np_cnp_sent;		/* congestion control: none yet, 0 */
	__le64	rp_cnp_handled;		/* 0 */
	__le64	np_ecn_marked_roce_packets; /* 0 */
	__le64	rnr_nak_sent;		/* responder: no receive WQE */
	__le64	rnr_nak_received;
	__le64	qp_retransmits;		/* requester: packets sent again */
	__le64	qp_tx_packets;
	__le64	qp_rx_packets;
	__le64	sq_doorbells;
	__le64	rq_doorbells;
	__le64	cqe_dropped;		/* completions a full CQ did not take */
};

#define ORDMA_QP_STATS_SIZE		192

/* QUERY_RESOURCES: objects of one type the device holds now, and how many
 * it can hold at once (the QUERY_DEVICE limit where there is one).
 */
struct ordma_res_count {
	__le32	in_use;
	__le32	max;
};

struct ordma_resources {
	struct ordma_res_count	uctx;		/* user contexts = doorbell pages */
	struct ordma_res_count	pd;
	struct ordma_res_count	eq;
	struct ordma_res_count	eth_ring;
	struct ordma_res_count	gid;		/* valid GID table entries */
	struct ordma_res_count	cq;
	struct ordma_res_count	qp;		/* QP1 included */
	struct ordma_res_count	srq;
	struct ordma_res_count	mr;		/* max: keys, shared with windows */
	struct ordma_res_count	mw;
	struct ordma_res_count	ah;
	struct ordma_res_count	mcast_grp;
	struct ordma_res_count	mcast_attach;	/* QP-group attachments */
};

#define ORDMA_RESOURCES_SIZE		104

/* A command status as the reference names it, for messages */
static inline const char *ordma_cmd_status_name(unsigned int status)
{
	static const char *const names[] = {
		[ORDMA_CMD_STATUS_OK]			= "OK",
		[ORDMA_CMD_STATUS_BAD_OPCODE]		= "BAD_OPCODE",
		[ORDMA_CMD_STATUS_BAD_PARAM]		= "BAD_PARAM",
		[ORDMA_CMD_STATUS_BAD_HANDLE]		= "BAD_HANDLE",
		[ORDMA_CMD_STATUS_NO_RESOURCES]		= "NO_RESOURCES",
		[ORDMA_CMD_STATUS_BAD_STATE]		= "BAD_STATE",
		[ORDMA_CMD_STATUS_BUSY]			= "BUSY",
		[ORDMA_CMD_STATUS_DMA_ERROR]		= "DMA_ERROR",
		[ORDMA_CMD_STATUS_NOT_SUPPORTED]	= "NOT_SUPPORTED",
		[ORDMA_CMD_STATUS_PERM]			= "PERM",
		[ORDMA_CMD_STATUS_INTERNAL]		= "INTERNAL",
	};

	return status < ARRAY_SIZE(names) && names[status] ?
	       names[status] : "UNKNOWN";
}

/* Counters of struct ordma_port_stats, every one a __le64 */
#define ORDMA_PORT_STATS_NUM		(ORDMA_PORT_STATS_SIZE / sizeof(__le64))
#define ORDMA_PORT_STAT_INDEX(field) \
	(offsetof(struct ordma_port_stats, field) / sizeof(__le64))

#define ORDMA_STAT_NAME(field) \
	[ORDMA_PORT_STAT_INDEX(field)] = #field
#define ORDMA_STAT_RX_DROP(reason, name) \
	[ORDMA_PORT_STAT_INDEX(roce_rx_drop_reason[ORDMA_ROCE_RX_DROP_##reason])] = \
		"roce_rx_drop_" name
#define ORDMA_STAT_PARSE_DROP(reason, name) \
	[ORDMA_PORT_STAT_INDEX(roce_rx_parse_drop[ORDMA_ROCE_PARSE_##reason])] = \
		"roce_parse_drop_" name
#define ORDMA_STAT_TX_DROP(reason, name) \
	[ORDMA_PORT_STAT_INDEX(roce_tx_drop[ORDMA_ROCE_TX_DROP_##reason])] = \
		"roce_tx_drop_" name
#define ORDMA_STAT_WIRE_FAULT(fault, name) \
	[ORDMA_PORT_STAT_INDEX(wire_fault[ORDMA_WIRE_FAULT_##fault])] = \
		"wire_fault_" name
#define ORDMA_STAT_FAULT(fault, name) \
	[ORDMA_PORT_STAT_INDEX(fault_injected[ORDMA_FAULT_##fault])] = \
		"fault_injected_" name
#define ORDMA_STAT_IW(field) \
	[ORDMA_PORT_STAT_INDEX(iw_##field)] = "iw_" #field
#define ORDMA_STAT_IB_RX_DROP(reason, name) \
	[ORDMA_PORT_STAT_INDEX(ib_rx_drop[ORDMA_IB_RX_DROP_##reason])] = \
		"ib_rx_drop_" name

/*
 * Name of counter i of struct ordma_port_stats, NULL past the last: the
 * field, or <array>_<reason> for an element of a per-reason array.  These
 * are the names ethtool and the RDMA statistics show.
 */
static inline const char *ordma_port_stat_name(unsigned int i)
{
	static const char *const names[ORDMA_PORT_STATS_NUM] = {
		ORDMA_STAT_NAME(tx_frames),
		ORDMA_STAT_NAME(tx_bytes),
		ORDMA_STAT_NAME(rx_frames),
		ORDMA_STAT_NAME(rx_bytes),
		ORDMA_STAT_NAME(tx_drop_link_down),
		ORDMA_STAT_NAME(tx_bad_desc),
		ORDMA_STAT_NAME(rx_drop_no_buf),
		ORDMA_STAT_NAME(rx_drop_filter),
		ORDMA_STAT_NAME(rx_drop_too_long),
		ORDMA_STAT_NAME(rx_drop_link_down),
		ORDMA_STAT_NAME(roce_rx_frames),
		ORDMA_STAT_NAME(roce_rx_drop),
		ORDMA_STAT_NAME(roce_tx_frames),
		ORDMA_STAT_NAME(roce_acks_sent),
		ORDMA_STAT_NAME(roce_naks_sent),
		ORDMA_STAT_NAME(roce_retransmits),
		ORDMA_STAT_NAME(roce_timeouts),
		ORDMA_STAT_RX_DROP(PARSE, "parse"),
		ORDMA_STAT_RX_DROP(NO_QP, "no_qp"),
		ORDMA_STAT_RX_DROP(TRANSPORT, "transport"),
		ORDMA_STAT_RX_DROP(STATE, "state"),
		ORDMA_STAT_RX_DROP(PKEY, "pkey"),
		ORDMA_STAT_RX_DROP(SRC, "src"),
		ORDMA_STAT_RX_DROP(QKEY, "qkey"),
		ORDMA_STAT_RX_DROP(NO_RECV, "no_recv"),
		ORDMA_STAT_RX_DROP(UD_LEN, "ud_len"),
		ORDMA_STAT_RX_DROP(SEQ, "seq"),
		ORDMA_STAT_RX_DROP(DUP, "dup"),
		ORDMA_STAT_RX_DROP(OPCODE_SEQ, "opcode_seq"),
		ORDMA_STAT_RX_DROP(BAD_REQ, "bad_req"),
		ORDMA_STAT_RX_DROP(RNR, "rnr"),
		ORDMA_STAT_RX_DROP(RESP, "resp"),
		ORDMA_STAT_PARSE_DROP(ETH_SHORT, "eth_short"),
		ORDMA_STAT_PARSE_DROP(ETHERTYPE, "ethertype"),
		ORDMA_STAT_PARSE_DROP(IPV4_SHORT, "ipv4_short"),
		ORDMA_STAT_PARSE_DROP(IPV4_VERSION, "ipv4_version"),
		ORDMA_STAT_PARSE_DROP(IPV4_IHL, "ipv4_ihl"),
		ORDMA_STAT_PARSE_DROP(IPV4_LENGTH, "ipv4_length"),
		ORDMA_STAT_PARSE_DROP(IPV4_CHECKSUM, "ipv4_checksum"),
		ORDMA_STAT_PARSE_DROP(IPV4_FRAGMENT, "ipv4_fragment"),
		ORDMA_STAT_PARSE_DROP(IPV6_SHORT, "ipv6_short"),
		ORDMA_STAT_PARSE_DROP(IPV6_VERSION, "ipv6_version"),
		ORDMA_STAT_PARSE_DROP(IPV6_LENGTH, "ipv6_length"),
		ORDMA_STAT_PARSE_DROP(IP_PROTO, "ip_proto"),
		ORDMA_STAT_PARSE_DROP(UDP_SHORT, "udp_short"),
		ORDMA_STAT_PARSE_DROP(UDP_PORT, "udp_port"),
		ORDMA_STAT_PARSE_DROP(UDP_LENGTH, "udp_length"),
		ORDMA_STAT_PARSE_DROP(UDP_CHECKSUM, "udp_checksum"),
		ORDMA_STAT_PARSE_DROP(BTH_SHORT, "bth_short"),
		ORDMA_STAT_PARSE_DROP(TVER, "tver"),
		ORDMA_STAT_PARSE_DROP(OPCODE, "opcode"),
		ORDMA_STAT_PARSE_DROP(EXT_SHORT, "ext_short"),
		ORDMA_STAT_PARSE_DROP(PAD, "pad"),
		ORDMA_STAT_PARSE_DROP(ICRC, "icrc"),
		ORDMA_STAT_TX_DROP(LINK_DOWN, "link_down"),
		ORDMA_STAT_TX_DROP(TOO_LONG, "too_long"),
		ORDMA_STAT_TX_DROP(NO_GID, "no_gid"),
		ORDMA_STAT_TX_DROP(BUILD, "build"),
		ORDMA_STAT_TX_DROP(DMA, "dma"),
		ORDMA_STAT_NAME(wire_tx_drop),
		ORDMA_STAT_NAME(wire_rx_drop),
		ORDMA_STAT_WIRE_FAULT(LOSS, "loss"),
		ORDMA_STAT_WIRE_FAULT(REORDER, "reorder"),
		ORDMA_STAT_WIRE_FAULT(DUP, "dup"),
		ORDMA_STAT_WIRE_FAULT(CORRUPT, "corrupt"),
		ORDMA_STAT_WIRE_FAULT(DELAY, "delay"),
		ORDMA_STAT_NAME(pause_rx),
		ORDMA_STAT_NAME(roce_tx_pause_holds),
		ORDMA_STAT_FAULT(DMA_READ, "dma_read"),
		ORDMA_STAT_FAULT(DMA_WRITE, "dma_write"),
		ORDMA_STAT_FAULT(ADMIN_DROP, "admin_drop"),
		ORDMA_STAT_FAULT(MSIX_DROP, "msix_drop"),
		ORDMA_STAT_FAULT(FATAL, "fatal"),
		ORDMA_STAT_FAULT(HEARTBEAT_STUCK, "heartbeat_stuck"),
		ORDMA_STAT_FAULT(ADMIN_DELAY, "admin_delay"),
		ORDMA_STAT_IB_RX_DROP(SHORT, "short"),
		ORDMA_STAT_IB_RX_DROP(LVER, "lver"),
		ORDMA_STAT_IB_RX_DROP(PKTLEN, "pktlen"),
		ORDMA_STAT_IB_RX_DROP(VCRC, "vcrc"),
		ORDMA_STAT_IB_RX_DROP(LNH, "lnh"),
		ORDMA_STAT_IB_RX_DROP(SLID, "slid"),
		ORDMA_STAT_IB_RX_DROP(GRH_SHORT, "grh_short"),
		ORDMA_STAT_IB_RX_DROP(GRH_VERSION, "grh_version"),
		ORDMA_STAT_IB_RX_DROP(GRH_NXTHDR, "grh_nxthdr"),
		ORDMA_STAT_IB_RX_DROP(GRH_PAYLEN, "grh_paylen"),
		ORDMA_STAT_IB_RX_DROP(BTH_SHORT, "bth_short"),
		ORDMA_STAT_IB_RX_DROP(TVER, "tver"),
		ORDMA_STAT_IB_RX_DROP(OPCODE, "opcode"),
		ORDMA_STAT_IB_RX_DROP(EXT_SHORT, "ext_short"),
		ORDMA_STAT_IB_RX_DROP(PAD, "pad"),
		ORDMA_STAT_IB_RX_DROP(VL15, "vl15"),
		ORDMA_STAT_IB_RX_DROP(QP0_VL, "qp0_vl"),
		ORDMA_STAT_IB_RX_DROP(ICRC, "icrc"),
		ORDMA_STAT_IB_RX_DROP(DLID, "dlid"),
		ORDMA_STAT_IW(tcp_rx_segments),
		ORDMA_STAT_IW(tcp_tx_segments),
		ORDMA_STAT_IW(tcp_rx_bad_checksum),
		ORDMA_STAT_IW(tcp_rx_bad_header),
		ORDMA_STAT_IW(tcp_rx_no_conn),
		ORDMA_STAT_IW(tcp_rx_out_of_window),
		ORDMA_STAT_IW(tcp_rx_rst_ignored),
		ORDMA_STAT_IW(tcp_rx_rst_challenged),
		ORDMA_STAT_IW(tcp_syn_backlog_full),
		ORDMA_STAT_IW(tcp_tx_no_neighbour),
		ORDMA_STAT_IW(tcp_tx_queue_full),
		ORDMA_STAT_IW(tcp_mem_errors),
		ORDMA_STAT_IW(mpa_bad),
		ORDMA_STAT_IW(mpa_rejected),
		ORDMA_STAT_IW(mpa_timeouts),
		ORDMA_STAT_IW(rtr_bad),
		ORDMA_STAT_IW(mpa_backlog_full),
		ORDMA_STAT_IW(rx_fpdus),
		ORDMA_STAT_IW(tx_fpdus),
		ORDMA_STAT_IW(rx_fpdu_crc_bad),
		ORDMA_STAT_IW(rx_fpdu_bad_len),
		ORDMA_STAT_IW(rx_fpdu_bytes_dropped),
		ORDMA_STAT_IW(terminates_sent),
		ORDMA_STAT_IW(terminates_received),
	};

	return i < ORDMA_PORT_STATS_NUM ? names[i] : NULL;
}

#undef ORDMA_STAT_NAME
#undef ORDMA_STAT_RX_DROP
#undef ORDMA_STAT_PARSE_DROP
#undef ORDMA_STAT_TX_DROP
#undef ORDMA_STAT_WIRE_FAULT
#undef ORDMA_STAT_FAULT
#undef ORDMA_STAT_IB_RX_DROP

/* Counters of struct ordma_qp_stats, every one a __le64 */
#define ORDMA_QP_STATS_NUM		(ORDMA_QP_STATS_SIZE / sizeof(__le64))
#define ORDMA_QP_STAT_NAME(field) \
	[offsetof(struct ordma_qp_stats, field) / sizeof(__le64)] = #field

/* Name of counter i of struct ordma_qp_stats (its field), NULL past the last */
static inline const char *ordma_qp_stat_name(unsigned int i)
{
	static const char *const names[ORDMA_QP_STATS_NUM] = {
		ORDMA_QP_STAT_NAME(out_of_sequence),
		ORDMA_QP_STAT_NAME(packet_seq_err),
		ORDMA_QP_STAT_NAME(duplicate_request),
		ORDMA_QP_STAT_NAME(rnr_nak_retry_err),
		ORDMA_QP_STAT_NAME(local_ack_timeout_err),
		ORDMA_QP_STAT_NAME(implied_nak_seq_err),
		ORDMA_QP_STAT_NAME(rx_read_requests),
		ORDMA_QP_STAT_NAME(rx_write_requests),
		ORDMA_QP_STAT_NAME(rx_atomic_requests),
		ORDMA_QP_STAT_NAME(resp_remote_access_errors),
		ORDMA_QP_STAT_NAME(req_remote_access_errors),
		ORDMA_QP_STAT_NAME(req_cqe_flush_error),
		ORDMA_QP_STAT_NAME(resp_cqe_flush_error),
		ORDMA_QP_STAT_NAME(np_cnp_sent),
		ORDMA_QP_STAT_NAME(rp_cnp_handled),
		ORDMA_QP_STAT_NAME(np_ecn_marked_roce_packets),
		ORDMA_QP_STAT_NAME(rnr_nak_sent),
		ORDMA_QP_STAT_NAME(rnr_nak_received),
		ORDMA_QP_STAT_NAME(qp_retransmits),
		ORDMA_QP_STAT_NAME(qp_tx_packets),
		ORDMA_QP_STAT_NAME(qp_rx_packets),
		ORDMA_QP_STAT_NAME(sq_doorbells),
		ORDMA_QP_STAT_NAME(rq_doorbells),
		ORDMA_QP_STAT_NAME(cqe_dropped),
	};

	return i < ORDMA_QP_STATS_NUM ? names[i] : NULL;
}

#undef ORDMA_QP_STAT_NAME

/* The device reads and writes these byte for byte: their sizes are ABI. */
static_assert(sizeof(struct ordma_aq_cmd_hdr) == 8, "aq_cmd_hdr");
static_assert(sizeof(struct ordma_cmd_query_buf) == 16, "cmd_query_buf");
static_assert(sizeof(struct ordma_cmd_set_port) == 20, "cmd_set_port");
static_assert(sizeof(struct ordma_cmd_create_eq) == 16, "cmd_create_eq");
static_assert(sizeof(struct ordma_cmd_handle) == 8, "cmd_handle");
static_assert(sizeof(struct ordma_cmd_create_eth_ring) == 16,
	      "cmd_create_eth_ring");
static_assert(sizeof(struct ordma_cmd_add_gid) == 32, "cmd_add_gid");
static_assert(sizeof(struct ordma_cmd_alloc_pd) == 8, "cmd_alloc_pd");
static_assert(sizeof(struct ordma_cmd_process_mad) == 24, "cmd_process_mad");
static_assert(sizeof(struct ordma_cmd_modify_ib_port) == 16,
	      "cmd_modify_ib_port");
static_assert(sizeof(struct ordma_cmd_set_node_desc) == 16,
	      "cmd_set_node_desc");
static_assert(sizeof(struct ordma_comp_process_mad) == 12, "comp_process_mad");
static_assert(sizeof(struct ordma_page_list) == 16, "page_list");
static_assert(sizeof(struct ordma_cmd_buf) == 16, "cmd_buf");
static_assert(sizeof(struct ordma_cmd_reg_mr) == 56, "cmd_reg_mr");
static_assert(sizeof(struct ordma_cmd_alloc_mw) == 16, "cmd_alloc_mw");
static_assert(sizeof(struct ordma_cmd_create_cq) == 40, "cmd_create_cq");
static_assert(sizeof(struct ordma_cmd_create_srq) == 40, "cmd_create_srq");
static_assert(sizeof(struct ordma_cq_attr) == 32, "cq_attr");
static_assert(sizeof(struct ordma_cmd_modify_srq) == 16, "cmd_modify_srq");
static_assert(sizeof(struct ordma_qp_create_params) == 64, "qp_create_params");
static_assert(sizeof(struct ordma_qp_attr) == 72, "qp_attr");
static_assert(sizeof(struct ordma_cmd_create_ah) == 48, "cmd_create_ah");
static_assert(sizeof(struct ordma_cmd_mcast) == 32, "cmd_mcast");
static_assert(sizeof(struct ordma_cmd_inject_fault) == 12, "cmd_inject_fault");
static_assert(sizeof(struct ordma_cmd_flash_write) == 16, "cmd_flash_write");
static_assert(sizeof(struct ordma_cmd_flash_commit) == 4, "cmd_flash_commit");
static_assert(sizeof(struct ordma_flash_slot_info) == 16, "flash_slot_info");
static_assert(sizeof(struct ordma_flash_info) == ORDMA_FLASH_INFO_SIZE,
	      "flash_info");
static_assert(sizeof(struct ordma_cmd_iw_create_listen) == 24,
	      "ordma_cmd_iw_create_listen layout");
static_assert(sizeof(struct ordma_cmd_iw_conn) == 16,
	      "ordma_cmd_iw_conn layout");
static_assert(sizeof(struct ordma_iw_conn_params) == 320,
	      "ordma_iw_conn_params layout");
static_assert(sizeof(struct ordma_iw_conn_info) == 320,
	      "ordma_iw_conn_info layout");
static_assert(sizeof(struct ordma_cmd_set_rdma_protocol) == 8,
	      "cmd_set_rdma_protocol");
static_assert(sizeof(struct ordma_aq_cmd) == ORDMA_AQ_CMD_SIZE, "aq_cmd");
static_assert(sizeof(struct ordma_comp_query_fw) == 16, "comp_query_fw");
static_assert(sizeof(struct ordma_comp_handle) == 8, "comp_handle");
static_assert(sizeof(struct ordma_comp_buf) == 4, "comp_buf");
static_assert(sizeof(struct ordma_comp_health) == 20, "comp_health");
static_assert(sizeof(struct ordma_aq_comp) == ORDMA_AQ_COMP_SIZE, "aq_comp");
static_assert(sizeof(struct ordma_device_caps) == 200, "device_caps");
static_assert(sizeof(struct ordma_port_attr) == 72, "port_attr");
static_assert(sizeof(struct ordma_port_stats) == ORDMA_PORT_STATS_SIZE,
	      "port_stats");
static_assert(sizeof(struct ordma_qp_stats) == ORDMA_QP_STATS_SIZE,
	      "qp_stats");
static_assert(sizeof(struct ordma_res_count) == 8, "res_count");
static_assert(sizeof(struct ordma_resources) == ORDMA_RESOURCES_SIZE,
	      "resources");

#endif /* _LINUX_ORDMA_ADMIN_H */
