/* SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause */
/*
 * ORDMA RDMA driver: device and object structures shared by its files.
 */
#ifndef _ORDMA_IB_H_
#define _ORDMA_IB_H_

#include <linux/ordma/driver.h>
#include <rdma/ib_verbs.h>

struct ordma_ibdev {
	struct ib_device ibdev;
	struct ordma_core_dev *cdev;
	/* QUERY_DEVICE result; the capabilities do not change while bound */
	struct ordma_device_caps caps;
	/* firmware version packed as major << 32 | minor << 16 | sub_minor */
	u64 fw_ver;
};

struct ordma_ucontext {
	struct ib_ucontext ibucontext;
	/* device context id, also the index of its doorbell page in BAR2 */
	u32 uctx_id;
	struct rdma_user_mmap_entry *db_mmap_entry;
};

struct ordma_pd {
	struct ib_pd ibpd;
	u32 pdn;
	/* owning context: ORDMA_KERNEL_UCTX for kernel PDs */
	u32 uctx_id;
};

/* Every mmap entry is a page of device memory (a doorbell page). */
struct ordma_user_mmap_entry {
	struct rdma_user_mmap_entry rdma_entry;
	phys_addr_t address;
};

static inline struct ordma_ibdev *to_ordma_ibdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct ordma_ibdev, ibdev);
}

static inline struct ordma_ucontext *
to_ordma_ucontext(struct ib_ucontext *ibucontext)
{
	return container_of(ibucontext, struct ordma_ucontext, ibucontext);
}

static inline struct ordma_pd *to_ordma_pd(struct ib_pd *ibpd)
{
	return container_of(ibpd, struct ordma_pd, ibpd);
}

static inline struct ordma_user_mmap_entry *
to_ordma_mmap_entry(struct rdma_user_mmap_entry *rdma_entry)
{
	return container_of(rdma_entry, struct ordma_user_mmap_entry,
			    rdma_entry);
}

/* ordma_verbs.c */
int ordma_query_device(struct ib_device *ibdev, struct ib_device_attr *attr,
		       struct ib_udata *udata);
int ordma_query_port(struct ib_device *ibdev, u32 port,
		     struct ib_port_attr *attr);
int ordma_get_port_immutable(struct ib_device *ibdev, u32 port,
			     struct ib_port_immutable *immutable);
enum rdma_link_layer ordma_get_link_layer(struct ib_device *ibdev, u32 port);
int ordma_query_pkey(struct ib_device *ibdev, u32 port, u16 index, u16 *pkey);
int ordma_add_gid(const struct ib_gid_attr *attr, void **context);
int ordma_del_gid(const struct ib_gid_attr *attr, void **context);
void ordma_get_dev_fw_str(struct ib_device *ibdev, char *str);
int ordma_alloc_ucontext(struct ib_ucontext *ibucontext,
			 struct ib_udata *udata);
void ordma_dealloc_ucontext(struct ib_ucontext *ibucontext);
void ordma_disassociate_ucontext(struct ib_ucontext *ibucontext);
int ordma_mmap(struct ib_ucontext *ibucontext, struct vm_area_struct *vma);
void ordma_mmap_free(struct rdma_user_mmap_entry *rdma_entry);
int ordma_alloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);
int ordma_dealloc_pd(struct ib_pd *ibpd, struct ib_udata *udata);

/* ordma_stats.c */
struct rdma_hw_stats *ordma_alloc_hw_port_stats(struct ib_device *ibdev,
						u32 port);
int ordma_get_hw_stats(struct ib_device *ibdev, struct rdma_hw_stats *stats,
		       u32 port, int index);

#endif /* _ORDMA_IB_H_ */
