/*
 * gpio.c - an AXI GPIO block (PG144 register layout): channel 1 is written by
 * the CPU, channel 2 is driven by the PL (the timing engine, later).
 */
#include "internal.h"

enum { GPIO_DATA = 0x0, GPIO_TRI = 0x4, GPIO2_DATA = 0x8, GPIO2_TRI = 0xC,
       GPIO_GIER = 0x11C, GPIO_ISR = 0x120, GPIO_IER = 0x128 };

uint32_t vb_gpio_read(vb_board *b, uint32_t off)
{
	struct vb_gpio *g = &b->gpio;
	switch (off) {
	case GPIO_DATA: return g->data[0];
	case GPIO_TRI: return g->tri[0];
	case GPIO2_DATA: return g->data[1];
	case GPIO2_TRI: return g->tri[1];
	case GPIO_GIER: return g->gier;
	case GPIO_ISR: return g->isr;
	case GPIO_IER: return g->ier;
	default: return 0;
	}
}

void vb_gpio_write(vb_board *b, uint32_t off, uint32_t value)
{
	struct vb_gpio *g = &b->gpio;
	switch (off) {
	case GPIO_DATA: g->data[0] = value; break;
	case GPIO_TRI: g->tri[0] = value; break;
	case GPIO2_DATA: g->data[1] = value; break;
	case GPIO2_TRI: g->tri[1] = value; break;
	case GPIO_GIER: g->gier = value & 0x80000000u; break;
	case GPIO_ISR: g->isr ^= value & 3u; break;   /* toggle-on-write (PG144) */
	case GPIO_IER: g->ier = value & 3u; break;
	default: break;
	}
}
