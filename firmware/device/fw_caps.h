/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * What QUERY_DEVICE reports (struct ordma_device_caps), each value taken
 * from the limit the firmware enforces, so that the two cannot differ.
 * tools/check/doc-tables.py checks the "Device capabilities" table of
 * Documentation/ordma/hw-reference.rst against these.
 */
#ifndef ORDMA_FW_CAPS_H
#define ORDMA_FW_CAPS_H

#include "fw_priv.h"
#include "objects/fw_qp.h"
#include "objects/fw_verbs.h"
#include "transport/fw_transport.h"

#define FW_CAP_MAX_MR_SIZE		FW_MAX_MR_SIZE
#define FW_CAP_PAGE_SIZE_CAP		GENMASK_ULL(ORDMA_MAX_PAGE_SHIFT, \
						    ORDMA_MIN_PAGE_SHIFT)
#define FW_CAP_MAX_QP			FW_MAX_QP
#define FW_CAP_MAX_QP_WR		(1U << ORDMA_WQ_MAX_LOG_SIZE)
#define FW_CAP_MAX_SEND_SGE		ORDMA_MAX_SEND_SGE
#define FW_CAP_MAX_RECV_SGE		ORDMA_MAX_RECV_SGE
#define FW_CAP_MAX_SGE_RD		ORDMA_MAX_SEND_SGE
#define FW_CAP_MAX_CQ			FW_MAX_CQ
#define FW_CAP_MAX_CQE			(1U << ORDMA_CQ_MAX_LOG_SIZE)
#define FW_CAP_MAX_MR			FW_MAX_MR
#define FW_CAP_MAX_PD			FW_MAX_PD
#define FW_CAP_MAX_SRQ			FW_MAX_SRQ
#define FW_CAP_MAX_SRQ_WR		(1U << ORDMA_WQ_MAX_LOG_SIZE)
#define FW_CAP_MAX_SRQ_SGE		ORDMA_MAX_RECV_SGE
#define FW_CAP_MAX_AH			FW_MAX_AH
#define FW_CAP_MAX_QP_RD_ATOM		FW_MAX_QP_RD_ATOM
#define FW_CAP_MAX_QP_INIT_RD_ATOM	FW_MAX_QP_INIT_RD_ATOM
#define FW_CAP_MAX_INLINE_DATA		ORDMA_MAX_INLINE_DATA
#define FW_CAP_MAX_EQ			FW_MAX_EQ
#define FW_CAP_MAX_MSG_SIZE		FW_TP_MAX_MSG_SIZE
#define FW_CAP_MAX_ETH_MTU		ORDMA_ETH_MAX_MTU
#define FW_CAP_NUM_PORTS		ORDMA_PORT_NUM
#define FW_CAP_GID_TABLE_LEN		FW_GID_TABLE_LEN
/* RoCE has no partitions: the one default P_Key */
#define FW_CAP_PKEY_TABLE_LEN		1
/* As the IBTA encodes it, 4.096 us x 2^15 (134 ms): the bound on the
 * time this responder takes to acknowledge a request
 */
#define FW_CAP_LOCAL_CA_ACK_DELAY	15
#define FW_CAP_MAX_ETH_RINGS		FW_MAX_ETH_RINGS
#define FW_CAP_MAX_MW			FW_MAX_MW
/* ORDMA_DEV_CAP_* an iWARP port does not offer */
#define FW_CAP_NOT_IWARP		(ORDMA_DEV_CAP_UD | ORDMA_DEV_CAP_UC | \
					 ORDMA_DEV_CAP_ATOMIC | \
					 ORDMA_DEV_CAP_GSI | \
					 ORDMA_DEV_CAP_MCAST | \
					 ORDMA_DEV_CAP_FLUSH | \
					 ORDMA_DEV_CAP_ATOMIC_WRITE)
#define FW_CAP_MAX_MCAST_GRP		FW_MAX_MCAST_GRP
#define FW_CAP_MAX_MCAST_QP_ATTACH	FW_MAX_MCAST_QP_ATTACH
#define FW_CAP_MAX_TOTAL_MCAST_QP_ATTACH FW_MAX_TOTAL_MCAST_QP_ATTACH

#endif /* ORDMA_FW_CAPS_H */
