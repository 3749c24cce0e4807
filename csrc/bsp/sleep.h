/* sleep.h - busy waits of the Xilinx standalone BSP; on the virtual board they
 * advance virtual time (and take pending interrupts). */
#ifndef SGDMA_BSP_SLEEP_H
#define SGDMA_BSP_SLEEP_H

#include "xil_types.h"

int usleep(unsigned long useconds);
unsigned sleep(unsigned int seconds);

#endif
