/*
 * ddrc.c - the DDR controller's ports: every master's DRAM request enters
 * through the port it is wired to (the CPU/L2 port, the PL's HP/HPC port
 * behind the interconnect).  This first version serves requests in arrival
 * order (FCFS) with the background CPU load's requests merged in time order;
 * per-port queues and the part's arbitration replace it.
 */
#include "internal.h"

static uint64_t max64(uint64_t a, uint64_t b) { return a > b ? a : b; }

uint64_t vb_ddrc_request(vb_board *b, enum vb_ddrc_port port, uint64_t t_arrive, uint64_t addr, uint32_t len,
			 bool write, uint64_t *t_done)
{
	(void)port;
	if (b->load.period_ps)      /* the CPU load's requests that reach the controller first */
		vb_cpuload_until(b, t_arrive);
	return vb_dram_access(&b->dram, max64(t_arrive, b->dram.last_arrive), addr, len, write, t_done);
}
