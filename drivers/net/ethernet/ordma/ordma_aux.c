// SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
/* ORDMA auxiliary device: the "rdma" device through which the RDMA driver
 * (ordma_ib) binds to a PCI function of the core.  Its ids are unique
 * across functions, as the auxiliary bus requires.
 */

#include <linux/auxiliary_bus.h>
#include <linux/idr.h>
#include <linux/slab.h>

#include "ordma_core.h"

static DEFINE_IDA(ordma_aux_ida);

static void ordma_aux_release(struct device *dev)
{
	struct auxiliary_device *adev = to_auxiliary_dev(dev);

	ida_free(&ordma_aux_ida, adev->id);
	kfree(to_ordma_aux_dev(adev));
}

int ordma_aux_add(struct ordma_core_dev *cdev)
{
	struct ordma_aux_dev *aux;
	int id, err;

	aux = kzalloc(sizeof(*aux), GFP_KERNEL);
	if (!aux)
		return -ENOMEM;
	id = ida_alloc(&ordma_aux_ida, GFP_KERNEL);
	if (id < 0) {
		kfree(aux);
		return id;
	}

	aux->cdev = cdev;
	aux->adev.name = ORDMA_AUX_RDMA_NAME;
	aux->adev.id = id;
	aux->adev.dev.parent = &cdev->pdev->dev;
	aux->adev.dev.release = ordma_aux_release;

	err = auxiliary_device_init(&aux->adev);
	if (err) {
		ida_free(&ordma_aux_ida, id);
		kfree(aux);
		return err;
	}
	err = auxiliary_device_add(&aux->adev);
	if (err) {
		/* Drops the last reference: ordma_aux_release() frees. */
		auxiliary_device_uninit(&aux->adev);
		return err;
	}
	cdev->aux = aux;
	return 0;
}

/*
 * The RDMA device as the devlink parameters want it: none, or one of the
 * chosen protocol.  The firmware takes a new protocol only while no RDMA
 * object exists, so it is set here, before the device is added, and
 * QUERY_DEVICE read again for what the protocol offers.  A reset returns
 * the firmware to RoCEv2: the choice is applied on every start.
 */
int ordma_rdma_add(struct ordma_core_dev *cdev)
{
	struct device *dev = &cdev->pdev->dev;
	int err;

	if (!cdev->rdma_enabled)
		return 0;
	if (cdev->rdma_proto == ORDMA_PORT_PROTO_IWARP &&
	    !(le32_to_cpu(cdev->caps.cap_flags) & ORDMA_DEV_CAP_IWARP)) {
		/* a firmware activated since, without iWARP */
		dev_warn(dev, "firmware has no iWARP; RDMA uses RoCEv2\n");
		cdev->rdma_proto = ORDMA_PORT_PROTO_ROCE;
	}
	if (cdev->caps.rdma_protocol != cdev->rdma_proto) {
		err = ordma_cmd_set_rdma_protocol(cdev, cdev->rdma_proto);
		if (err) {
			dev_err(dev, "SET_RDMA_PROTOCOL %u failed: %d\n",
				cdev->rdma_proto, err);
			return err;
		}
		err = ordma_cmd_query_device(cdev, &cdev->caps);
		if (err) {
			dev_err(dev, "QUERY_DEVICE failed: %d\n", err);
			return err;
		}
	}
	return ordma_aux_add(cdev);
}

void ordma_aux_del(struct ordma_core_dev *cdev)
{
	auxiliary_device_delete(&cdev->aux->adev);
	auxiliary_device_uninit(&cdev->aux->adev);
	cdev->aux = NULL;
}

/* Module exit: every auxiliary device is gone by now. */
void ordma_aux_exit(void)
{
	ida_destroy(&ordma_aux_ida);
}
