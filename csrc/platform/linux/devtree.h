/* devtree.h - reading the live device tree (SGDMA_SYSROOT applied): labels
 * and register ranges, so a DMA can be named as Vivado names it. */
#ifndef SGDMA_LINUX_DEVTREE_H
#define SGDMA_LINUX_DEVTREE_H

#include <stddef.h>
#include <stdint.h>

/* The live tree (/proc/device-tree is a link to it). */
#define SG_DT_BASE "/sys/firmware/devicetree/base"

/* The node a label names (__symbols__/label, written when the tree was
 * built with symbols, as Vivado/PetaLinux overlays are): its path from the
 * root ("/amba_pl@0/dma@40400000") into node; -1 without such a label. */
int sg_linux_dt_label(const char *label, char *node, size_t n);
/* The first (address, size) pair of the node's reg property, cells sized
 * by the parent's #address-cells / #size-cells (2 and 1 when absent, as the
 * devicetree specification says); -1 without a readable reg. */
int sg_linux_dt_reg(const char *node, uint64_t *addr, uint64_t *size);

#endif
