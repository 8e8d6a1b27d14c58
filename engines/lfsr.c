/* SPDX-License-Identifier: MIT */
#include "lfsr.h"

#define MAX_TAPS 6

/* fio's tap positions for a maximal n-bit register, n = 3..63 */
static const uint8_t taps[64][MAX_TAPS] = {
	[3] = { 3, 2 }, [4] = { 4, 3 }, [5] = { 5, 3 }, [6] = { 6, 5 }, [7] = { 7, 6 },
	[8] = { 8, 6, 5, 4 }, [9] = { 9, 5 }, [10] = { 10, 7 }, [11] = { 11, 9 },
	[12] = { 12, 6, 4, 1 }, [13] = { 13, 4, 3, 1 }, [14] = { 14, 5, 3, 1 },
	[15] = { 15, 14 }, [16] = { 16, 15, 13, 4 }, [17] = { 17, 14 }, [18] = { 18, 11 },
	[19] = { 19, 6, 2, 1 }, [20] = { 20, 17 }, [21] = { 21, 19 }, [22] = { 22, 21 },
	[23] = { 23, 18 }, [24] = { 24, 23, 22, 17 }, [25] = { 25, 22 },
	[26] = { 26, 6, 2, 1 }, [27] = { 27, 5, 2, 1 }, [28] = { 28, 25 }, [29] = { 29, 27 },
	[30] = { 30, 6, 4, 1 }, [31] = { 31, 28 }, [32] = { 32, 31, 29, 1 }, [33] = { 33, 20 },
	[34] = { 34, 27, 2, 1 }, [35] = { 35, 33 }, [36] = { 36, 25 },
	[37] = { 37, 5, 4, 3, 2, 1 }, [38] = { 38, 6, 5, 1 }, [39] = { 39, 35 },
	[40] = { 40, 38, 21, 19 }, [41] = { 41, 38 }, [42] = { 42, 41, 20, 19 },
	[43] = { 43, 42, 38, 37 }, [44] = { 44, 43, 18, 17 }, [45] = { 45, 44, 42, 41 },
	[46] = { 46, 45, 26, 25 }, [47] = { 47, 42 }, [48] = { 48, 47, 21, 20 },
	[49] = { 49, 40 }, [50] = { 50, 49, 24, 23 }, [51] = { 51, 50, 36, 35 },
	[52] = { 52, 49 }, [53] = { 53, 52, 38, 37 }, [54] = { 54, 53, 18, 17 },
	[55] = { 55, 31 }, [56] = { 56, 55, 35, 34 }, [57] = { 57, 50 }, [58] = { 58, 39 },
	[59] = { 59, 58, 38, 37 }, [60] = { 60, 59 }, [61] = { 61, 60, 46, 45 },
	[62] = { 62, 61, 6, 5 }, [63] = { 63, 62 },
};

static void step(struct iogap_lfsr *l, unsigned times)
{
	for (unsigned i = 0; i < times; i++)
		l->last_val = ((l->last_val >> 1) | l->cached_bit) ^
			      (((l->last_val & 1) - 1) & l->xormask);
}

int iogap_lfsr_init(struct iogap_lfsr *l, uint64_t blocks, uint64_t seed)
{
	unsigned n = 3;

	/* the smallest register with more states than blocks (all-ones is
	 * never reached) */
	while (n < 64 && (1ULL << n) <= blocks)
		n++;
	if (n == 64 || blocks == 0)
		return -1;
	l->max_val = blocks - 1;
	l->xormask = 0;
	for (int i = 0; i < MAX_TAPS && taps[n][i]; i++)
		l->xormask |= 1ULL << (taps[n][i] - 1);
	l->cached_bit = 1ULL << (taps[n][0] - 1);
	l->stepped = false;
	l->seed = seed;
	iogap_lfsr_restart(l);
	/* the all-ones state is the register's forbidden one */
	return l->last_val == (l->cached_bit << 1) - 1 ? -1 : 0;
}

void iogap_lfsr_restart(struct iogap_lfsr *l)
{
	l->num_vals = 0;
	l->last_val = l->seed & ((l->cached_bit << 1) - 1);
}

int iogap_lfsr_next(struct iogap_lfsr *l, uint64_t *block)
{
	if (l->num_vals++ > l->max_val)
		return -1;
	do {
		/* fio's spin bookkeeping (prepare_spin(0) counts one cycle too
		 * many) makes the first step after init a double one */
		step(l, l->stepped ? 1 : 2);
		l->stepped = true;
	} while (l->last_val > l->max_val);
	*block = l->last_val;
	return 0;
}
