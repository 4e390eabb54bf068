// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA admin queue mechanics.
 *
 * The admin queue is a ring of 64-byte commands in host memory and a ring
 * of 32-byte completions the device writes with a phase bit.  The device
 * executes commands in ring order and completes each one at the matching
 * position of the completion ring, raising MSI-X vector 0.  It never
 * learns how far the driver has consumed the completion ring, so at most
 * depth commands may be outstanding; the semaphore enforces that.
 *
 * A command's token is its free-running 16-bit producer index: the low
 * log_depth bits are the slot, the high bits a generation that tells a
 * late completion from the slot's next user.  A command that times out
 * leaves its slot quarantined (ABANDONED) until the device completes it
 * or is reset, so the ring position is never reused too early.  A
 * completion carrying a token other than that of the command at its
 * position is garbled: it is counted as stray and fails that command,
 * which the device has executed, so that no slot stays blocked.
 */

#include <linux/dma-mapping.h>
#include <linux/slab.h>

#include "ordma_core.h"

int ordma_cmd_status_to_errno(u8 status)
{
	switch (status) {
	case ORDMA_CMD_STATUS_OK:
		return 0;
	case ORDMA_CMD_STATUS_BAD_OPCODE:
	case ORDMA_CMD_STATUS_NOT_SUPPORTED:
		return -EOPNOTSUPP;
	case ORDMA_CMD_STATUS_BAD_PARAM:
	case ORDMA_CMD_STATUS_BAD_STATE:
		return -EINVAL;
	case ORDMA_CMD_STATUS_BAD_HANDLE:
		return -ENOENT;
	case ORDMA_CMD_STATUS_NO_RESOURCES:
		return -ENOSPC;
	case ORDMA_CMD_STATUS_BUSY:
		return -EBUSY;
	case ORDMA_CMD_STATUS_PERM:
		return -EPERM;
	case ORDMA_CMD_STATUS_DMA_ERROR:
	case ORDMA_CMD_STATUS_INTERNAL:
	default:
		return -EIO;
	}
}

struct ordma_cmd_dma *ordma_cmd_dma_alloc(struct ordma_core_dev *cdev,
					  u32 len)
{
	struct device *dev = ordma_dev(cdev);
	struct ordma_cmd_dma *buf;

	if (!len || len > ORDMA_AQ_MAX_BUF)
		return NULL;

	buf = kzalloc(sizeof(*buf), GFP_KERNEL);
	if (!buf)
		return NULL;
	buf->va = kzalloc(len, GFP_KERNEL);
	if (!buf->va)
		goto err_free;
	buf->len = len;
	buf->dma = dma_map_single(dev, buf->va, len, DMA_BIDIRECTIONAL);
	if (dma_mapping_error(dev, buf->dma))
		goto err_free_va;
	return buf;

err_free_va:
	kfree(buf->va);
err_free:
	kfree(buf);
	return NULL;
}

/* May be called from the admin interrupt for quarantined buffers. */
void ordma_cmd_dma_free(struct ordma_core_dev *cdev, struct ordma_cmd_dma *buf)
{
	if (!buf)
		return;
	dma_unmap_single(ordma_dev(cdev), buf->dma, buf->len,
			 DMA_BIDIRECTIONAL);
	kfree(buf->va);
	kfree(buf);
}

/* The device latches the queue's registers at ENABLE; a reset clears
 * them.
 */
void ordma_cmdq_program(struct ordma_core_dev *cdev)
{
	struct ordma_cmdq *q = &cdev->cmdq;

	ordma_wr32(cdev, ORDMA_REG_AQ_BASE_LO, lower_32_bits(q->sq_dma));
	ordma_wr32(cdev, ORDMA_REG_AQ_BASE_HI, upper_32_bits(q->sq_dma));
	ordma_wr32(cdev, ORDMA_REG_ACQ_BASE_LO, lower_32_bits(q->cq_dma));
	ordma_wr32(cdev, ORDMA_REG_ACQ_BASE_HI, upper_32_bits(q->cq_dma));
	ordma_wr32(cdev, ORDMA_REG_AQ_CFG,
		   FIELD_PREP(ORDMA_AQ_CFG_LOG_DEPTH, q->log_depth));
}

/* @device_failed is called when a command finds the device failed. */
int ordma_cmdq_init(struct ordma_core_dev *cdev,
		    void (*device_failed)(struct ordma_core_dev *cdev))
{
	struct ordma_cmdq *q = &cdev->cmdq;
	struct device *dev = ordma_dev(cdev);

	q->device_failed = device_failed;
	q->log_depth = min3(cdev->max_aq_log, (u32)ORDMA_AQ_LOG_DEPTH,
			    (u32)ORDMA_AQ_MAX_LOG_DEPTH);
	if (q->log_depth < ORDMA_AQ_MIN_LOG_DEPTH)
		return -EINVAL;
	q->depth = 1U << q->log_depth;

	/* Coherent allocations are page aligned, as the device requires. */
	q->sq = dma_alloc_coherent(dev, q->depth * ORDMA_AQ_CMD_SIZE,
				   &q->sq_dma, GFP_KERNEL);
	if (!q->sq)
		return -ENOMEM;
	q->cq = dma_alloc_coherent(dev, q->depth * ORDMA_AQ_COMP_SIZE,
				   &q->cq_dma, GFP_KERNEL);
	if (!q->cq)
		goto err_free_sq;
	q->slots = kcalloc(q->depth, sizeof(*q->slots), GFP_KERNEL);
	if (!q->slots)
		goto err_free_cq;

	sema_init(&q->avail, q->depth);
	spin_lock_init(&q->lock);
	q->pi = 0;
	q->cq_ci = 0;
	q->cq_phase = 1;
	q->dead = false;
	ordma_cmdq_program(cdev);
	return 0;

err_free_cq:
	dma_free_coherent(dev, q->depth * ORDMA_AQ_COMP_SIZE, q->cq, q->cq_dma);
	q->cq = NULL;
err_free_sq:
	dma_free_coherent(dev, q->depth * ORDMA_AQ_CMD_SIZE, q->sq, q->sq_dma);
	q->sq = NULL;
	return -ENOMEM;
}

/*
 * Only after ordma_cmdq_mark_dead() and a device reset, which made the
 * device forget the queue: release what timed-out commands left
 * quarantined, clear the completion ring and hand the same rings to the
 * device again.  The queue stays dead until ordma_cmdq_open(), after
 * ENABLE: the device ignores a doorbell before it is ready.  The memory
 * is kept, so a caller racing with a recovery finds a dead queue, never
 * a freed one.
 */
void ordma_cmdq_restart(struct ordma_core_dev *cdev)
{
	struct ordma_cmdq *q = &cdev->cmdq;
	unsigned long flags;
	u32 i;

	spin_lock_irqsave(&q->lock, flags);
	for (i = 0; i < q->depth; i++) {
		struct ordma_cmd_slot *slot = &q->slots[i];

		if (slot->state == ORDMA_SLOT_FREE)
			continue;
		/* Dead queues have no PENDING slot: all were abandoned. */
		ordma_cmd_dma_free(cdev, slot->buf);
		slot->buf = NULL;
		slot->wait = NULL;
		slot->state = ORDMA_SLOT_FREE;
		up(&q->avail);
	}
	memset(q->cq, 0, q->depth * ORDMA_AQ_COMP_SIZE);
	q->pi = 0;
	q->cq_ci = 0;
	q->cq_phase = 1;
	ordma_cmdq_program(cdev);
	spin_unlock_irqrestore(&q->lock, flags);
}

/* The device is ENABLEd with the rings ordma_cmdq_restart() gave it. */
void ordma_cmdq_open(struct ordma_core_dev *cdev)
{
	WRITE_ONCE(cdev->cmdq.dead, false);
}

/* The last ORDMA_CMD_HISTORY commands, oldest first; returns how many. */
unsigned int ordma_cmdq_history(struct ordma_core_dev *cdev,
				struct ordma_cmd_record *out)
{
	struct ordma_cmdq *q = &cdev->cmdq;
	unsigned int i, n, first;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	n = min_t(u32, q->history_count, ORDMA_CMD_HISTORY);
	first = q->history_count - n;
	for (i = 0; i < n; i++)
		out[i] = q->history[(first + i) % ORDMA_CMD_HISTORY];
	spin_unlock_irqrestore(&q->lock, flags);
	return n;
}

static void ordma_cmdq_record(struct ordma_core_dev *cdev,
			      const struct ordma_aq_cmd *cmd, u16 token,
			      u64 start_ns, int err, u8 status)
{
	struct ordma_cmdq *q = &cdev->cmdq;
	struct ordma_cmd_record *rec;
	unsigned long flags;

	spin_lock_irqsave(&q->lock, flags);
	rec = &q->history[q->history_count++ % ORDMA_CMD_HISTORY];
	rec->start_ns = start_ns;
	rec->duration_us = div_u64(ktime_get_ns() - start_ns, NSEC_PER_USEC);
	rec->token = token;
	rec->opcode = cmd->hdr.opcode;
	rec->status = status;
	rec->err = err;
	spin_unlock_irqrestore(&q->lock, flags);
}

/* Only after the device has been reset: nothing may DMA any more. */
void ordma_cmdq_destroy(struct ordma_core_dev *cdev)
{
	struct ordma_cmdq *q = &cdev->cmdq;
	struct device *dev = ordma_dev(cdev);
	u32 i;

	if (!q->sq)
		return;

	for (i = 0; i < q->depth; i++) {
		ordma_cmd_dma_free(cdev, q->slots[i].buf);
		q->slots[i].buf = NULL;
	}
	kfree(q->slots);
	q->slots = NULL;
	dma_free_coherent(dev, q->depth * ORDMA_AQ_COMP_SIZE, q->cq, q->cq_dma);
	q->cq = NULL;
	dma_free_coherent(dev, q->depth * ORDMA_AQ_CMD_SIZE, q->sq, q->sq_dma);
	q->sq = NULL;
}

/* The device is done with @slot's command.  Its waiter gets @comp, or
 * -EIO when the completion was garbled (@comp NULL); a buffer that goes
 * back to no caller is freed, the device no longer writes to it.
 */
static void ordma_cmdq_finish(struct ordma_core_dev *cdev,
			      struct ordma_cmd_slot *slot,
			      const struct ordma_aq_comp *comp)
{
	struct ordma_cmdq *q = &cdev->cmdq;

	lockdep_assert_held(&q->lock);

	if (slot->state == ORDMA_SLOT_ABANDONED) {
		q->late_completions++;
		dev_info_ratelimited(ordma_dev(cdev),
				     "late completion of admin command 0x%02x (token 0x%04x)\n",
				     slot->opcode, slot->token);
		ordma_cmd_dma_free(cdev, slot->buf);
	} else if (comp) {
		slot->wait->comp = *comp;
		slot->wait->err = 0;
		complete(&slot->wait->done);
	} else {
		slot->wait->err = -EIO;
		complete(&slot->wait->done);
		ordma_cmd_dma_free(cdev, slot->buf);
	}
	slot->buf = NULL;
	slot->wait = NULL;
	slot->state = ORDMA_SLOT_FREE;
	up(&q->avail);
}

/* The device executes commands in ring order and writes each completion
 * at its command's position, so the completion at free-running position
 * @pos belongs to the command whose token is @pos; the token it carries
 * only confirms that.
 */
static void ordma_cmdq_complete(struct ordma_core_dev *cdev,
				const struct ordma_aq_comp *comp, u16 pos)
{
	struct ordma_cmdq *q = &cdev->cmdq;
	struct ordma_cmd_slot *slot = &q->slots[pos & (q->depth - 1)];
	u16 token = le16_to_cpu(comp->token);

	lockdep_assert_held(&q->lock);

	if (slot->state == ORDMA_SLOT_FREE || slot->token != pos) {
		q->stray_completions++;
		dev_warn_ratelimited(ordma_dev(cdev),
				     "admin completion at position 0x%04x (token 0x%04x) without a command\n",
				     pos, token);
		return;
	}
	if (token != pos) {
		/* Executed, but with a garbled completion: fail the command
		 * now rather than let it time out and keep its slot, which
		 * would block the ring when the producer index comes round.
		 */
		q->stray_completions++;
		dev_warn_ratelimited(ordma_dev(cdev),
				     "admin command 0x%02x (token 0x%04x) completed with token 0x%04x\n",
				     slot->opcode, pos, token);
		comp = NULL;
	}
	ordma_cmdq_finish(cdev, slot, comp);
}

/* Consume every completion the device has written; admin interrupt. */
void ordma_cmdq_process(struct ordma_core_dev *cdev)
{
	struct ordma_cmdq *q = &cdev->cmdq;
	unsigned long flags;
	u32 n;

	spin_lock_irqsave(&q->lock, flags);
	/* Bounded, so a misbehaving device cannot keep us here. */
	for (n = 0; n < q->depth; n++) {
		u16 pos = q->cq_ci;
		struct ordma_aq_comp *entry = &q->cq[pos & (q->depth - 1)];
		struct ordma_aq_comp comp;
		u32 eflags;

		eflags = le32_to_cpu(READ_ONCE(entry->flags));
		if (!!(eflags & ORDMA_COMP_PHASE) != q->cq_phase)
			break;
		/* The body was written before the phase: read it after. */
		dma_rmb();
		memcpy(&comp, entry, sizeof(comp));

		q->cq_ci++;
		if (!(q->cq_ci & (q->depth - 1)))
			q->cq_phase ^= 1;
		ordma_cmdq_complete(cdev, &comp, pos);
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

/* No command will be accepted or completed any more: wake every waiter.
 * Their slots stay quarantined, with any buffer they name, until the
 * device is reset.
 */
void ordma_cmdq_mark_dead(struct ordma_core_dev *cdev)
{
	struct ordma_cmdq *q = &cdev->cmdq;
	unsigned long flags;
	u32 i;

	if (!q->slots)
		return;

	spin_lock_irqsave(&q->lock, flags);
	WRITE_ONCE(q->dead, true);
	for (i = 0; i < q->depth; i++) {
		struct ordma_cmd_slot *slot = &q->slots[i];

		if (slot->state != ORDMA_SLOT_PENDING)
			continue;
		slot->wait->err = -ENODEV;
		complete(&slot->wait->done);
		slot->wait = NULL;
		slot->state = ORDMA_SLOT_ABANDONED;
	}
	spin_unlock_irqrestore(&q->lock, flags);
}

static bool ordma_cmdq_check_fatal(struct ordma_core_dev *cdev)
{
	u32 status = ordma_rd32(cdev, ORDMA_REG_STATUS);

	if (status != ORDMA_REG_DEAD && !(status & ORDMA_STATUS_FATAL))
		return false;
	cdev->cmdq.device_failed(cdev);
	return true;
}

/**
 * ordma_cmdq_exec - run one admin command and wait for its completion
 * @cdev: core device
 * @cmd: command; its token is overwritten
 * @comp: receives the completion (may be NULL)
 * @buf: DMA buffer named by @cmd, or NULL
 *
 * Returns 0 when the device completed the command, whatever its status,
 * -ETIMEDOUT when it did not within the command timeout, -ENODEV when
 * the device is dead and -EIO when the completion came back garbled (or
 * the slot is still blocked by a command the device skipped).  On
 * success the caller still owns @buf and its contents are visible to the
 * CPU; on error @buf has been released: freed, or kept by the queue while
 * the device may still write to it.
 */
int ordma_cmdq_exec(struct ordma_core_dev *cdev, struct ordma_aq_cmd *cmd,
		    struct ordma_aq_comp *comp, struct ordma_cmd_dma *buf)
{
	unsigned long timeout = msecs_to_jiffies(cdev->cmd_timeout_ms);
	struct ordma_cmdq *q = &cdev->cmdq;
	struct ordma_cmd_slot *slot;
	struct ordma_cmd_wait wait;
	bool timed_out = false;
	unsigned long flags;
	u64 start_ns;
	u16 token;
	int err;

	might_sleep();
	start_ns = ktime_get_ns();

	if (READ_ONCE(q->dead) || ordma_cmdq_check_fatal(cdev)) {
		err = -ENODEV;
		goto err_free_buf;
	}
	if (down_timeout(&q->avail, timeout)) {
		dev_err(ordma_dev(cdev), "admin queue full for %u ms\n",
			cdev->cmd_timeout_ms);
		err = -ETIMEDOUT;
		goto err_free_buf;
	}

	init_completion(&wait.done);
	wait.err = -EIO;

	spin_lock_irqsave(&q->lock, flags);
	token = q->pi;
	slot = &q->slots[token & (q->depth - 1)];
	if (q->dead || slot->state != ORDMA_SLOT_FREE) {
		/* Only a device that skipped the command one lap back
		 * (it executes in ring order) leaves its slot busy.
		 */
		err = q->dead ? -ENODEV : -EIO;
		spin_unlock_irqrestore(&q->lock, flags);
		up(&q->avail);
		goto err_free_buf;
	}
	cmd->hdr.token = cpu_to_le16(token);
	memcpy(&q->sq[token & (q->depth - 1)], cmd, sizeof(*cmd));
	slot->token = token;
	slot->opcode = cmd->hdr.opcode;
	slot->wait = &wait;
	slot->buf = buf;
	slot->state = ORDMA_SLOT_PENDING;
	q->pi++;
	/* writel() orders the entry in memory before the doorbell; the
	 * doorbell stays under the lock so producer indices never go back.
	 */
	ordma_wr32(cdev, ORDMA_REG_AQ_DB, FIELD_PREP(ORDMA_AQ_DB_PI, q->pi));
	spin_unlock_irqrestore(&q->lock, flags);

	if (!wait_for_completion_timeout(&wait.done, timeout)) {
		spin_lock_irqsave(&q->lock, flags);
		if (slot->state == ORDMA_SLOT_PENDING && slot->wait == &wait) {
			/* Quarantine the slot and keep its buffer. */
			slot->state = ORDMA_SLOT_ABANDONED;
			slot->wait = NULL;
			q->timeouts++;
			timed_out = true;
		}
		spin_unlock_irqrestore(&q->lock, flags);
	}
	if (timed_out) {
		dev_err(ordma_dev(cdev),
			"admin command 0x%02x (token 0x%04x) timed out after %u ms\n",
			cmd->hdr.opcode, token, cdev->cmd_timeout_ms);
		err = ordma_cmdq_check_fatal(cdev) ? -ENODEV : -ETIMEDOUT;
		ordma_cmdq_record(cdev, cmd, token, start_ns, err, 0);
		return err;
	}
	/* -ENODEV from ordma_cmdq_mark_dead(), which leaves the buffer in
	 * the quarantined slot, or -EIO for a garbled completion, after
	 * which the buffer has been freed.
	 */
	ordma_cmdq_record(cdev, cmd, token, start_ns, wait.err,
			  wait.err ? 0 : wait.comp.status);
	if (wait.err)
		return wait.err;

	if (buf)
		dma_sync_single_for_cpu(ordma_dev(cdev), buf->dma, buf->len,
					DMA_BIDIRECTIONAL);
	if (comp)
		*comp = wait.comp;
	return 0;

err_free_buf:
	ordma_cmd_dma_free(cdev, buf);
	return err;
}
