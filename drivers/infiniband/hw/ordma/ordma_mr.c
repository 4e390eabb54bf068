// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/*
 * ORDMA RDMA driver: page lists and memory regions.
 *
 * Every host buffer the device walks (queue rings, MR pages) is handed to
 * it as a struct ordma_page_list.  Pinned user memory gets a page list of
 * level 0 (one block), 1 (one table page) or 2 (a page of table pages);
 * the tables are DMA-coherent 4 KiB pages that live as long as the object.
 * Kernel rings are single DMA-coherent allocations and always level 0.
 */

#include <linux/dma-mapping.h>
#include <linux/ioport.h>
#include <linux/log2.h>
#include <linux/slab.h>
#include <rdma/ib_umem.h>
#include <rdma/iter.h>
#include <rdma/ib_verbs.h>

#include "ordma_ib.h"

#define ORDMA_TABLE_SIZE	(ORDMA_MTT_ENTRIES_PER_PAGE * sizeof(__le64))
#define ORDMA_MAX_L2_PAGES	(ORDMA_MTT_ENTRIES_PER_PAGE * \
				 ORDMA_MTT_ENTRIES_PER_PAGE)
/* Largest page array a fast-register MR may have */
#define ORDMA_MAX_FAST_REG_PAGES	ORDMA_MTT_ENTRIES_PER_PAGE

static struct device *ordma_dma_dev(struct ordma_ibdev *dev)
{
	return dev->ibdev.dma_device;
}

void ordma_pbl_free(struct ordma_ibdev *dev, struct ordma_pbl *pbl)
{
	u32 i;

	for (i = 0; i < pbl->num_tables; i++)
		dma_free_coherent(ordma_dma_dev(dev), ORDMA_TABLE_SIZE,
				  pbl->table_va[i], pbl->table_dma[i]);
	kfree(pbl->table_va);
	kfree(pbl->table_dma);
	pbl->table_va = NULL;
	pbl->table_dma = NULL;
	pbl->num_tables = 0;
}

static int ordma_pbl_alloc_tables(struct ordma_ibdev *dev,
				  struct ordma_pbl *pbl, u32 n)
{
	pbl->table_va = kcalloc(n, sizeof(*pbl->table_va), GFP_KERNEL);
	pbl->table_dma = kcalloc(n, sizeof(*pbl->table_dma), GFP_KERNEL);
	if (!pbl->table_va || !pbl->table_dma)
		goto err_free;

	for (pbl->num_tables = 0; pbl->num_tables < n; pbl->num_tables++) {
		u32 i = pbl->num_tables;

		pbl->table_va[i] = dma_alloc_coherent(ordma_dma_dev(dev),
						      ORDMA_TABLE_SIZE,
						      &pbl->table_dma[i],
						      GFP_KERNEL);
		if (!pbl->table_va[i])
			goto err_free;
	}
	return 0;

err_free:
	ordma_pbl_free(dev, pbl);
	return -ENOMEM;
}

/*
 * Describe the DMA blocks of @umem, of @pgsz bytes each (as chosen by
 * ib_umem_find_best_pgsz()), to the device.
 */
int ordma_pbl_from_umem(struct ordma_ibdev *dev, struct ib_umem *umem,
			unsigned long pgsz, struct ordma_pbl *pbl)
{
	size_t nblocks = ib_umem_num_dma_blocks(umem, pgsz);
	struct ib_block_iter biter;
	u32 ntables, i = 0;
	__le64 *top;
	int err;

	memset(pbl, 0, sizeof(*pbl));
	if (!nblocks || nblocks > ORDMA_MAX_L2_PAGES)
		return -EINVAL;

	pbl->hw.num_pages = cpu_to_le32(nblocks);
	pbl->hw.page_shift = order_base_2(pgsz);

	if (nblocks == 1) {
		/* One block is contiguous: no table needed. */
		rdma_umem_for_each_dma_block(umem, &biter, pgsz)
			pbl->hw.addr =
				cpu_to_le64(rdma_block_iter_dma_address(&biter));
		pbl->hw.levels = 0;
		return 0;
	}

	ntables = DIV_ROUND_UP(nblocks, ORDMA_MTT_ENTRIES_PER_PAGE);
	pbl->hw.levels = ntables == 1 ? 1 : 2;
	/* Level 2: table 0 is the top page, tables 1..n the level-1 ones. */
	err = ordma_pbl_alloc_tables(dev, pbl,
				     ntables == 1 ? 1 : ntables + 1);
	if (err)
		return err;

	rdma_umem_for_each_dma_block(umem, &biter, pgsz) {
		u32 t = pbl->hw.levels == 1 ? 0 :
			1 + i / ORDMA_MTT_ENTRIES_PER_PAGE;
		__le64 *table = pbl->table_va[t];

		table[i % ORDMA_MTT_ENTRIES_PER_PAGE] =
			cpu_to_le64(rdma_block_iter_dma_address(&biter));
		i++;
	}

	if (pbl->hw.levels == 2) {
		top = pbl->table_va[0];
		for (i = 0; i < ntables; i++)
			top[i] = cpu_to_le64(pbl->table_dma[i + 1]);
	}
	pbl->hw.addr = cpu_to_le64(pbl->table_dma[0]);
	return 0;
}

/*
 * Pin a user ring of @size bytes at @addr (page aligned, as the ABI
 * requires).  A ring page list has no offset into its first page, so only
 * page sizes to which @addr is aligned qualify.
 */
struct ib_umem *ordma_umem_ring(struct ordma_ibdev *dev, u64 addr,
				size_t size, struct ordma_pbl *pbl)
{
	unsigned long pgsz_bitmap;
	struct ib_umem *umem;
	unsigned long pgsz;
	int err;

	if (!addr || !PAGE_ALIGNED(addr) || !size) {
		ibdev_dbg(&dev->ibdev, "ring at %#llx is not page aligned\n",
			  addr);
		return ERR_PTR(-EINVAL);
	}

	umem = ib_umem_get(&dev->ibdev, addr, PAGE_ALIGN(size),
			   IB_ACCESS_LOCAL_WRITE);
	if (IS_ERR(umem)) {
		ibdev_dbg(&dev->ibdev, "failed to pin ring at %#llx: %ld\n",
			  addr, PTR_ERR(umem));
		return umem;
	}

	pgsz_bitmap = GENMASK(min_t(unsigned int, __ffs64(addr),
				    ORDMA_MAX_PAGE_SHIFT),
			      ORDMA_MIN_PAGE_SHIFT);
	pgsz = ib_umem_find_best_pgsz(umem, pgsz_bitmap, addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_release;
	}

	err = ordma_pbl_from_umem(dev, umem, pgsz, pbl);
	if (err)
		goto err_release;
	return umem;

err_release:
	ib_umem_release(umem);
	return ERR_PTR(err);
}

/* A kernel ring: zeroed, contiguous, described with 4 KiB pages. */
int ordma_kbuf_alloc(struct ordma_ibdev *dev, struct ordma_kbuf *kbuf,
		     size_t size, struct ordma_page_list *pl)
{
	kbuf->size = PAGE_ALIGN(size);
	kbuf->va = dma_alloc_coherent(ordma_dma_dev(dev), kbuf->size,
				      &kbuf->dma, GFP_KERNEL);
	if (!kbuf->va)
		return -ENOMEM;

	memset(pl, 0, sizeof(*pl));
	pl->addr = cpu_to_le64(kbuf->dma);
	pl->num_pages = cpu_to_le32(kbuf->size >> ORDMA_MIN_PAGE_SHIFT);
	pl->page_shift = ORDMA_MIN_PAGE_SHIFT;
	pl->levels = 0;
	return 0;
}

void ordma_kbuf_free(struct ordma_ibdev *dev, struct ordma_kbuf *kbuf)
{
	if (!kbuf->va)
		return;
	dma_free_coherent(ordma_dma_dev(dev), kbuf->size, kbuf->va, kbuf->dma);
	kbuf->va = NULL;
}

/* IB access flags to ORDMA_ACCESS_*; optional flags are ignored. */
int ordma_access_to_hw(int ib_access, u32 *hw_access)
{
	int known = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE |
		    IB_ACCESS_REMOTE_READ | IB_ACCESS_REMOTE_ATOMIC |
		    IB_ACCESS_FLUSH_GLOBAL | IB_ACCESS_FLUSH_PERSISTENT |
		    IB_ACCESS_MW_BIND;

	ib_access &= ~IB_ACCESS_OPTIONAL;
	if (ib_access & ~known)
		return -EOPNOTSUPP;

	*hw_access = 0;
	if (ib_access & IB_ACCESS_LOCAL_WRITE)
		*hw_access |= ORDMA_ACCESS_LOCAL_WRITE;
	if (ib_access & IB_ACCESS_REMOTE_WRITE)
		*hw_access |= ORDMA_ACCESS_REMOTE_WRITE;
	if (ib_access & IB_ACCESS_REMOTE_READ)
		*hw_access |= ORDMA_ACCESS_REMOTE_READ;
	if (ib_access & IB_ACCESS_REMOTE_ATOMIC)
		*hw_access |= ORDMA_ACCESS_REMOTE_ATOMIC;
	if (ib_access & IB_ACCESS_FLUSH_GLOBAL)
		*hw_access |= ORDMA_ACCESS_FLUSH_GLOBAL;
	if (ib_access & IB_ACCESS_FLUSH_PERSISTENT)
		*hw_access |= ORDMA_ACCESS_FLUSH_PERSISTENT;
	if (ib_access & IB_ACCESS_MW_BIND)
		*hw_access |= ORDMA_ACCESS_MW_BIND;
	return 0;
}

/*
 * Access an iWARP port cannot grant: atomics and FLUSH, which iWARP
 * lacks; the device refuses them as well.  -EOPNOTSUPP, as the core's
 * ib_check_mr_access() answers FLUSH access on a device without it.
 */
int ordma_access_check_port(const struct ordma_ibdev *dev, int ib_access)
{
	if (ordma_port_is_iwarp(dev) &&
	    (ib_access & (IB_ACCESS_REMOTE_ATOMIC | IB_ACCESS_FLUSH_GLOBAL |
			  IB_ACCESS_FLUSH_PERSISTENT)))
		return -EOPNOTSUPP;
	return 0;
}

/*
 * The device acknowledges a persistent FLUSH once the data has reached
 * host memory; that is persistence only if the memory is.  So the grant
 * is given only to MRs lying entirely in persistent memory.
 */
static bool ordma_umem_is_pmem(struct ib_umem *umem)
{
	struct sg_page_iter iter;

	for_each_sgtable_page(&umem->sgt_append.sgt, &iter, 0) {
		phys_addr_t pa = page_to_phys(sg_page_iter_page(&iter));

		if (region_intersects(pa, PAGE_SIZE, IORESOURCE_MEM,
				      IORES_DESC_PERSISTENT_MEMORY) !=
		    REGION_INTERSECTS)
			return false;
	}
	return true;
}

static u8 ordma_next_key_variant(struct ordma_ibdev *dev)
{
	return (u8)atomic_inc_return(&dev->key_seq);
}

static int ordma_mr_register(struct ordma_ibdev *dev, struct ordma_mr *mr,
			     struct ordma_cmd_reg_mr *cmd)
{
	u32 key;
	int err;

	cmd->uctx = cpu_to_le32(mr->uctx_id);
	cmd->key = ordma_next_key_variant(dev);
	err = ordma_cmd_reg_mr(dev, cmd, &key);
	if (err) {
		ibdev_dbg(&dev->ibdev, "REG_MR failed: %d\n", err);
		return err;
	}

	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return 0;
}

/* Pins [start, start + length) and builds the page list for iova. */
static int ordma_mr_pin(struct ordma_ibdev *dev, u64 start, u64 length,
			u64 virt_addr, int access_flags, struct ib_umem **umemp,
			struct ordma_pbl *pbl)
{
	struct ib_umem *umem;
	unsigned long pgsz;
	int err;

	umem = ib_umem_get(&dev->ibdev, start, length, access_flags);
	if (IS_ERR(umem)) {
		err = PTR_ERR(umem);
		ibdev_dbg(&dev->ibdev, "failed to pin MR memory: %d\n", err);
		return err;
	}
	if ((access_flags & IB_ACCESS_FLUSH_PERSISTENT) &&
	    !ordma_umem_is_pmem(umem)) {
		ibdev_dbg(&dev->ibdev,
			  "FLUSH_PERSISTENT on memory that is not persistent\n");
		err = -EINVAL;
		goto err_release;
	}
	pgsz = ib_umem_find_best_pgsz(umem,
				      le64_to_cpu(dev->caps.page_size_cap) &
				      GENMASK_ULL(ORDMA_MAX_PAGE_SHIFT,
						  ORDMA_MIN_PAGE_SHIFT),
				      virt_addr);
	if (!pgsz) {
		err = -EINVAL;
		goto err_release;
	}
	err = ordma_pbl_from_umem(dev, umem, pgsz, pbl);
	if (err) {
		ibdev_dbg(&dev->ibdev, "MR of %zu %lu-byte pages: %d\n",
			  ib_umem_num_dma_blocks(umem, pgsz), pgsz, err);
		goto err_release;
	}
	*umemp = umem;
	return 0;

err_release:
	ib_umem_release(umem);
	return err;
}

struct ib_mr *ordma_reg_user_mr(struct ib_pd *ibpd, u64 start, u64 length,
				u64 virt_addr, int access_flags,
				struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibpd->device);
	struct ordma_pd *pd = to_ordma_pd(ibpd);
	struct ordma_cmd_reg_mr cmd = {};
	struct ordma_mr *mr;
	u32 access;
	int err;

	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);

	err = ordma_access_to_hw(access_flags, &access);
	if (!err)
		err = ordma_access_check_port(dev, access_flags);
	if (err) {
		ibdev_dbg(&dev->ibdev, "unsupported MR access %#x\n",
			  access_flags);
		return ERR_PTR(err);
	}
	if (!length || length > le64_to_cpu(dev->caps.max_mr_size))
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->uctx_id = pd->uctx_id;
	mr->access_flags = access_flags;

	err = ordma_mr_pin(dev, start, length, virt_addr, access_flags,
			   &mr->umem, &mr->pbl);
	if (err)
		goto err_free;

	cmd.pdn = cpu_to_le32(pd->pdn);
	cmd.iova = cpu_to_le64(virt_addr);
	cmd.length = cpu_to_le64(length);
	cmd.pages = mr->pbl.hw;
	cmd.access = cpu_to_le32(access);
	err = ordma_mr_register(dev, mr, &cmd);
	if (err)
		goto err_pbl;

	ibdev_dbg(&dev->ibdev,
		  "MR key %#x: %llu bytes at %#llx, %u pages of 2^%u, level %u\n",
		  mr->ibmr.lkey, length, virt_addr,
		  le32_to_cpu(mr->pbl.hw.num_pages), mr->pbl.hw.page_shift,
		  mr->pbl.hw.levels);
	return &mr->ibmr;

err_pbl:
	if (ordma_device_may_use_memory(ORDMA_MEM_CREATE, err))
		return ERR_PTR(err);
	ordma_pbl_free(dev, &mr->pbl);
	ib_umem_release(mr->umem);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

/*
 * Re-registration in place (REG_MR with ORDMA_MR_REREG): the MR keeps its
 * keys, so the rkeys peers hold stay valid, and takes the new PD,
 * translation and/or access in one command; what is not changed is
 * passed as it was.  New pages are pinned for a new translation, and
 * also when the access becomes writable and the old pages were pinned
 * read-only.  Nothing of the MR changes before the device accepted the
 * command, so a refusal leaves it whole and in use: -EBUSY while memory
 * windows are bound to it (a window would keep its rights over the new
 * pages, which may be pinned read-only).
 */
struct ib_mr *ordma_rereg_user_mr(struct ib_mr *ibmr, int flags, u64 start,
				  u64 length, u64 virt_addr, int access_flags,
				  struct ib_pd *ibpd, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibmr->device);
	struct ordma_mr *mr = to_ordma_mr(ibmr);
	struct ordma_cmd_reg_mr cmd = {};
	struct ib_umem *umem = NULL;
	struct ordma_pbl pbl = {};
	bool repin;
	u32 access, key;
	int err;

	if (flags & ~IB_MR_REREG_SUPPORTED)
		return ERR_PTR(-EOPNOTSUPP);
	if (udata && udata->inlen &&
	    !ib_is_udata_cleared(udata, 0, udata->inlen))
		return ERR_PTR(-EINVAL);
	/* DMA and fast-register MRs belong to the kernel */
	if (!mr->umem)
		return ERR_PTR(-EINVAL);
	/* only REREG_PD naming the MR's own PD: nothing changes */
	if (!flags)
		return NULL;

	if (!(flags & IB_MR_REREG_ACCESS))
		access_flags = mr->access_flags;
	if (!(flags & IB_MR_REREG_PD))
		ibpd = ibmr->pd;
	if (!(flags & IB_MR_REREG_TRANS)) {
		start = mr->umem->address;
		length = ibmr->length;
		virt_addr = ibmr->iova;
	}
	err = ordma_access_to_hw(access_flags, &access);
	if (!err)
		err = ordma_access_check_port(dev, access_flags);
	if (err)
		return ERR_PTR(err);
	if (!length || length > le64_to_cpu(dev->caps.max_mr_size))
		return ERR_PTR(-EINVAL);

	/* new pages, pages pinned writable, or pages to check for pmem */
	repin = (flags & IB_MR_REREG_TRANS) ||
		(ib_access_writable(access_flags) && !mr->umem->writable) ||
		(access_flags & ~mr->access_flags & IB_ACCESS_FLUSH_PERSISTENT);
	if (repin) {
		err = ordma_mr_pin(dev, start, length, virt_addr, access_flags,
				   &umem, &pbl);
		if (err)
			return ERR_PTR(err);
	}

	cmd.pdn = cpu_to_le32(to_ordma_pd(ibpd)->pdn);
	cmd.uctx = cpu_to_le32(mr->uctx_id);
	cmd.iova = cpu_to_le64(virt_addr);
	cmd.length = cpu_to_le64(length);
	cmd.pages = repin ? pbl.hw : mr->pbl.hw;
	cmd.access = cpu_to_le32(access);
	cmd.flags = ORDMA_MR_REREG;
	cmd.rereg_key = cpu_to_le32(ibmr->lkey);
	err = ordma_cmd_reg_mr(dev, &cmd, &key);
	if (err) {
		ibdev_dbg(&dev->ibdev, "REG_MR (REREG) of %#x failed: %d\n",
			  ibmr->lkey, err);
		/* the device may yet switch to the new pages: keep them */
		if (repin &&
		    !ordma_device_may_use_memory(ORDMA_MEM_CREATE, err)) {
			ordma_pbl_free(dev, &pbl);
			ib_umem_release(umem);
		}
		return ERR_PTR(err);
	}

	if (repin) {
		ordma_pbl_free(dev, &mr->pbl);
		ib_umem_release(mr->umem);
		mr->pbl = pbl;
		mr->umem = umem;
	}
	mr->access_flags = access_flags;
	ibdev_dbg(&dev->ibdev, "MR key %#x re-registered: flags %#x\n",
		  ibmr->lkey, flags);
	/* the core updates pd, iova and length of ibmr */
	return NULL;
}

/* Kernel only: the MR translates bus addresses 1:1. */
struct ib_mr *ordma_get_dma_mr(struct ib_pd *ibpd, int access_flags)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibpd->device);
	struct ordma_pd *pd = to_ordma_pd(ibpd);
	struct ordma_cmd_reg_mr cmd = {};
	struct ordma_mr *mr;
	u32 access;
	int err;

	if (pd->uctx_id != ORDMA_KERNEL_UCTX)
		return ERR_PTR(-EPERM);
	/* all of memory is not persistent memory */
	if (access_flags & IB_ACCESS_FLUSH_PERSISTENT)
		return ERR_PTR(-EINVAL);

	err = ordma_access_to_hw(access_flags, &access);
	if (!err)
		err = ordma_access_check_port(dev, access_flags);
	if (err)
		return ERR_PTR(err);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->uctx_id = ORDMA_KERNEL_UCTX;

	cmd.pdn = cpu_to_le32(pd->pdn);
	cmd.iova = 0;
	cmd.length = dev->caps.max_mr_size;
	cmd.access = cpu_to_le32(access);
	cmd.flags = ORDMA_MR_DMA;
	err = ordma_mr_register(dev, mr, &cmd);
	if (err) {
		kfree(mr);
		return ERR_PTR(err);
	}
	return &mr->ibmr;
}

struct ib_mr *ordma_alloc_mr(struct ib_pd *ibpd, enum ib_mr_type mr_type,
			     u32 max_num_sg)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibpd->device);
	struct ordma_pd *pd = to_ordma_pd(ibpd);
	struct ordma_cmd_reg_mr cmd = {};
	struct ordma_mr *mr;
	int err;

	if (mr_type != IB_MR_TYPE_MEM_REG)
		return ERR_PTR(-EOPNOTSUPP);
	if (!(le32_to_cpu(dev->caps.cap_flags) & ORDMA_DEV_CAP_FAST_REG))
		return ERR_PTR(-EOPNOTSUPP);
	if (!max_num_sg || max_num_sg > ORDMA_MAX_FAST_REG_PAGES)
		return ERR_PTR(-EINVAL);

	mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	if (!mr)
		return ERR_PTR(-ENOMEM);
	mr->uctx_id = pd->uctx_id;
	mr->max_pages = max_num_sg;

	/* The device copies the array when a REG_MR work request runs. */
	mr->pages = dma_alloc_coherent(ordma_dma_dev(dev),
				       max_num_sg * sizeof(*mr->pages),
				       &mr->pages_dma, GFP_KERNEL);
	if (!mr->pages) {
		err = -ENOMEM;
		goto err_free;
	}

	cmd.pdn = cpu_to_le32(pd->pdn);
	cmd.flags = ORDMA_MR_FAST_REG;
	cmd.max_pages = cpu_to_le16(max_num_sg);
	err = ordma_mr_register(dev, mr, &cmd);
	if (err)
		goto err_pages;
	return &mr->ibmr;

err_pages:
	if (ordma_device_may_use_memory(ORDMA_MEM_CREATE, err))
		return ERR_PTR(err);
	dma_free_coherent(ordma_dma_dev(dev), max_num_sg * sizeof(*mr->pages),
			  mr->pages, mr->pages_dma);
err_free:
	kfree(mr);
	return ERR_PTR(err);
}

static int ordma_set_page(struct ib_mr *ibmr, u64 addr)
{
	struct ordma_mr *mr = to_ordma_mr(ibmr);

	if (mr->npages >= mr->max_pages)
		return -ENOMEM;
	mr->pages[mr->npages++] = cpu_to_le64(addr);
	return 0;
}

int ordma_map_mr_sg(struct ib_mr *ibmr, struct scatterlist *sg, int sg_nents,
		    unsigned int *sg_offset)
{
	struct ordma_mr *mr = to_ordma_mr(ibmr);

	if (!mr->pages)
		return -EINVAL;
	mr->npages = 0;
	return ib_sg_to_pages(ibmr, sg, sg_nents, sg_offset, ordma_set_page);
}

int ordma_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	struct ordma_ibdev *dev = to_ordma_ibdev(ibmr->device);
	struct ordma_mr *mr = to_ordma_mr(ibmr);
	int err;

	err = ordma_cmd_dereg_mr(dev, mr->uctx_id, ibmr->lkey);
	/* Windows are still bound to it: the MR stays, pages and all. */
	if (err == -EBUSY)
		return err;
	ordma_report_destroy(dev, err, "DEREG_MR %#x", ibmr->lkey);
	/* The device may still translate through the pages. */
	if (ordma_device_may_use_memory(ORDMA_MEM_DESTROY, err))
		return 0;

	ordma_pbl_free(dev, &mr->pbl);
	if (mr->umem)
		ib_umem_release(mr->umem);
	if (mr->pages)
		dma_free_coherent(ordma_dma_dev(dev),
				  mr->max_pages * sizeof(*mr->pages),
				  mr->pages, mr->pages_dma);
	kfree(mr);
	return 0;
}
