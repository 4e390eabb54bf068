# SPDX-License-Identifier: GPL-2.0 OR BSD-3-Clause
"""The ORDMA device model's qtests, by area (run by tools/qemu/qtest-ordma.py)."""
