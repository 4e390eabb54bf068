/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * The simulated host's side of PROCESS_MAD: builds MADs byte by byte in
 * fake host memory (offsets from IBTA vol. 1 ch. 13, 14 and 16, spelled
 * out independently of the firmware's structures), hands them to the
 * device and reads its response.
 */
#ifndef ORDMA_TESTS_MAD_H
#define ORDMA_TESTS_MAD_H

#include "drv.h"

#define MAD_IN_ADDR		(DRV_SCRATCH_ADDR + 0x1000)
/* PROCESS_MAD's buffer: the request, then the response */
#define MAD_OUT_ADDR		(MAD_IN_ADDR + ORDMA_MAD_SIZE)
#define MAD_NO_REPLY		0xffffu

/* MAD header */
#define MAD_BASE_VERSION	0
#define MAD_CLASS		1
#define MAD_CLASS_VERSION	2
#define MAD_METHOD		3
#define MAD_STATUS		4
#define MAD_HOP_PTR		6
#define MAD_HOP_CNT		7
#define MAD_TID			8
#define MAD_ATTR_ID		16
#define MAD_ATTR_MOD		20
/* SMP */
#define SMP_MKEY		24
#define SMP_DR_SLID		32
#define SMP_DR_DLID		34
#define SMP_DATA		64
#define SMP_INITIAL_PATH	128
#define SMP_RETURN_PATH		192
/* PMA */
#define PMA_DATA		64

#define CLASS_SUBN_LID		0x01
#define CLASS_PERF		0x04
#define CLASS_SUBN_DR		0x81
#define METHOD_GET		0x01
#define METHOD_SET		0x02
#define METHOD_GET_RESP		0x81

#define ATTR_NODE_DESC		0x0010
#define ATTR_NODE_INFO		0x0011
#define ATTR_GUID_INFO		0x0014
#define ATTR_PORT_INFO		0x0015
#define ATTR_PKEY_TABLE		0x0016
#define ATTR_SL_TO_VL		0x0017
#define ATTR_VL_ARB		0x0018
#define ATTR_SM_INFO		0x0020

#define MAD_ST_BAD_VERSION	0x0004
#define MAD_ST_BAD_METHOD	0x0008
#define MAD_ST_BAD_ATTR		0x000c
#define MAD_ST_BAD_FIELD	0x001c
#define MAD_ST_DIRECTION	0x8000

/* An InfiniBand device, enabled */
bool mad_open_ib(struct drv *d);

uint8_t *mad_in(struct drv *d);
uint8_t *mad_out(struct drv *d);

/* A request in the in MAD (zeroed first); DR: hop count/pointer 0 and
 * both DR LIDs permissive
 */
void mad_build(struct drv *d, uint8_t mgmt_class, uint8_t method,
	       uint16_t attr, uint32_t mod);

/* PROCESS_MAD of the in MAD; the out MAD is filled with 0xee before */
uint8_t mad_exec(struct drv *d, uint8_t flags);
uint32_t mad_result(const struct drv *d);
uint32_t mad_drop(const struct drv *d);
/* Executes; the response's status, MAD_NO_REPLY without one */
uint16_t mad_run(struct drv *d, uint8_t flags);

/* LID-routed SMP Get/Set of attr with M_Key 0 and no flags */
uint16_t smp_get(struct drv *d, uint16_t attr, uint32_t mod);
uint16_t smp_set(struct drv *d, uint16_t attr, uint32_t mod,
		 const uint8_t data[64]);

/* Big-endian fields */
uint16_t rd16(const uint8_t *p, size_t off);
uint32_t rd32(const uint8_t *p, size_t off);
uint64_t rd64(const uint8_t *p, size_t off);
void wr16(uint8_t *p, size_t off, uint16_t v);
void wr32(uint8_t *p, size_t off, uint32_t v);
void wr64(uint8_t *p, size_t off, uint64_t v);

#endif /* ORDMA_TESTS_MAD_H */
