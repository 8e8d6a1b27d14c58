/* SPDX-License-Identifier: MIT */
/*
 * I/O priorities with fio's options and meanings: prio and prioclass
 * (ioprio_set, backend.c), and cmdprio_percentage, cmdprio_class, cmdprio
 * and cmdprio_bssplit of libaio and io_uring (engines/cmdprio.c): each
 * request of a direction gets, at random, a cmdprio priority in the given
 * share of cases, else the job's; the stat keeps latencies per priority.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "prio.h"
#include "stats.h"
#include "util.h"

#define IOPRIO_WHO_PROCESS 1
#define IOPRIO_CLASS_RT 1

/* "a" (read and write) or "a,b" (read, write), each in [min, max] */
static int parse_pair(const char *val, unsigned min, unsigned max, unsigned out[2], char *why,
		      size_t whylen)
{
	char buf[64], *comma;
	unsigned long long v[2];

	if (!val || strlen(val) >= sizeof(buf))
		return iogap_seterr(why, whylen, "expected a number from %u to %u", min, max);
	snprintf(buf, sizeof(buf), "%s", val);
	comma = strchr(buf, ',');
	if (comma)
		*comma = '\0';
	if (iogap_parse_uint(buf, max, &v[0]) || v[0] < min ||
	    (comma && (iogap_parse_uint(comma + 1, max, &v[1]) || v[1] < min)))
		return iogap_seterr(why, whylen, "expected a number from %u to %u (or read,write)",
				    min, max);
	out[0] = (unsigned)v[0];
	out[1] = comma ? (unsigned)v[1] : (unsigned)v[0];
	return 0;
}

/* fio's parse_cmdprio_bssplit_entry: bs/, bs/perc or bs/perc/class/level
 * (class and level capped at 3 and 7, as fio) */
static int parse_split_entry(char *s, struct iogap_cmdprio_split *e, char *why, size_t whylen)
{
	char *parts[4] = { 0 };
	unsigned n = 0;
	unsigned long long perc = 0, cls, level;
	uint64_t bs;

	while (n < 4 && (parts[n] = strsep(&s, "/")) != NULL)
		n++;
	if (s || n == 3 || iogap_parse_size(parts[0], &bs) || !bs || bs > UINT32_MAX ||
	    (n >= 2 && *parts[1] && iogap_parse_uint(parts[1], ~0ull, &perc)) ||
	    (n == 4 && (iogap_parse_uint(parts[2], ~0ull, &cls) ||
			iogap_parse_uint(parts[3], ~0ull, &level))))
		return iogap_seterr(why, whylen, "invalid cmdprio_bssplit entry (bs/perc or "
				    "bs/perc/class/level)");
	e->bs = (uint32_t)bs;
	e->perc = perc > 100 ? 100 : (uint32_t)perc;
	e->prio = n == 4 ? iogap_ioprio_value(cls > 3 ? 3 : (unsigned)cls,
					      level > 7 ? 7 : (unsigned)level) : -1;
	return 0;
}

/* One direction's "e1:e2:..." (entries of 0% are dropped, as fio) */
static int parse_split_ddir(struct iogap_prio_opts *p, unsigned d, const char *list, char *why,
			    size_t whylen)
{
	char *copy = strdup(list), *s = copy, *item;
	int r = 0;

	if (!copy)
		return iogap_seterr(why, whylen, "out of memory");
	p->bssplit_nr[d] = 0;
	while (!r && (item = strsep(&s, ":")) != NULL && *item) {
		struct iogap_cmdprio_split e;

		if (parse_split_entry(item, &e, why, whylen))
			r = -1;
		else if (e.perc && p->bssplit_nr[d] == IOGAP_MAX_CMDPRIO)
			r = iogap_seterr(why, whylen, "too many cmdprio_bssplit entries");
		else if (e.perc)
			p->bssplit[d][p->bssplit_nr[d]++] = e;
	}
	free(copy);
	return r;
}

/* fio's str_split_parse: "read,write[,trim]", one list for all */
static int parse_bssplit(struct iogap_prio_opts *p, const char *val, char *why, size_t whylen)
{
	char *copy, *comma;
	int r;

	if (!val || !*val)
		return iogap_seterr(why, whylen, "needs bs/perc[/class/level]:...");
	copy = strdup(val);
	if (!copy)
		return iogap_seterr(why, whylen, "out of memory");
	comma = strchr(copy, ',');
	if (comma) {
		*comma = '\0';
		if (strchr(comma + 1, ','))   /* trim's list: no priorities for trims */
			*strchr(comma + 1, ',') = '\0';
	}
	r = parse_split_ddir(p, 0, copy, why, whylen);
	if (!r)
		r = parse_split_ddir(p, 1, comma ? comma + 1 : copy, why, whylen);
	free(copy);
	p->bssplit_set = !r && *val;
	return r;
}

int iogap_job_prio_option(struct iogap_job *j, const char *key, const char *val, char *why,
			  size_t whylen)
{
	struct iogap_prio_opts *p = &j->prio;
	unsigned v[2];

	if (!strcmp(key, "cmdprio_bssplit"))
		return parse_bssplit(p, val, why, whylen);
	if (!strcmp(key, "cmdprio_percentage"))
		return parse_pair(val, 0, 100, p->cmdprio_percentage, why, whylen);
	if (!strcmp(key, "cmdprio_class"))
		return parse_pair(val, 1, 3, p->cmdprio_class, why, whylen);
	if (!strcmp(key, "cmdprio"))
		return parse_pair(val, 0, 7, p->cmdprio, why, whylen);
	if (strcmp(key, "prio") && strcmp(key, "prioclass"))
		return 1;
	if (parse_pair(val, 0, strcmp(key, "prio") ? 3 : 7, v, why, whylen))
		return -1;
	if (v[0] != v[1])
		return iogap_seterr(why, whylen, "one value");
	if (!strcmp(key, "prio")) {
		p->prio = v[0];
		p->prio_set = true;
	} else {
		p->prioclass = v[0];
		p->class_set = true;
	}
	return 0;
}

uint16_t iogap_job_ioprio(const struct iogap_job *j)
{
	if (!j->prio.prio_set && !j->prio.class_set)
		return 0;
	return iogap_ioprio_value(j->prio.prioclass, j->prio.prio);
}

static bool has_cmdprio(const struct iogap_prio_opts *p)
{
	return p->bssplit_set || p->cmdprio_percentage[0] || p->cmdprio_percentage[1];
}

/* fio's fio_cmdprio_fill_bsprio check, and room for the distinct
 * priorities a direction reports */
static int check_bssplit(const struct iogap_prio_opts *p, unsigned d, char *err, size_t errlen)
{
	uint16_t seen[IOGAP_MAX_CMDPRIO];
	unsigned nseen = 0;

	for (unsigned a = 0; a < p->bssplit_nr[d]; a++) {
		unsigned tot = 0;
		uint16_t prio = p->bssplit[d][a].prio >= 0 ? (uint16_t)p->bssplit[d][a].prio :
				iogap_ioprio_value(p->cmdprio_class[d], p->cmdprio[d]);
		bool known = false;

		for (unsigned b = 0; b < p->bssplit_nr[d]; b++)
			if (p->bssplit[d][b].bs == p->bssplit[d][a].bs)
				tot += p->bssplit[d][b].perc;
		if (tot > 100)
			return iogap_seterr(err, errlen, "cmdprio_bssplit total percentage for bs: %u "
					    "exceeds 100", p->bssplit[d][a].bs);
		for (unsigned k = 0; k < nseen; k++)
			known |= seen[k] == prio;
		if (!known)
			seen[nseen++] = prio;
	}
	if (nseen + 1 > IOGAP_MAX_CLAT_PRIO)
		return iogap_seterr(err, errlen, "cmdprio_bssplit: more than %d distinct priorities "
				    "in a direction", IOGAP_MAX_CLAT_PRIO - 1);
	return 0;
}

int iogap_job_prio_finalize(struct iogap_job *j, char *err, size_t errlen)
{
	struct iogap_prio_opts *p = &j->prio;
	bool any = has_cmdprio(p) || p->cmdprio_class[0] || p->cmdprio_class[1] ||
		   p->cmdprio[0] || p->cmdprio[1];

	if (any && strcmp(j->ioengine, "libaio") && strcmp(j->ioengine, "io_uring"))
		return iogap_seterr(err, errlen, "cmdprio_percentage, cmdprio_class, cmdprio and "
				    "cmdprio_bssplit are options of ioengine=libaio and io_uring, "
				    "not of %s", j->ioengine);
	if (p->bssplit_set && (p->cmdprio_percentage[0] || p->cmdprio_percentage[1]))
		return iogap_seterr(err, errlen, "cmdprio_percentage and cmdprio_bssplit options "
				    "are mutually exclusive");
	for (unsigned d = 0; d < 2; d++) {
		if (!p->cmdprio_class[d])   /* fio's default: the real-time class */
			p->cmdprio_class[d] = IOPRIO_CLASS_RT;
		if (check_bssplit(p, d, err, errlen))
			return -1;
	}
	return 0;
}

int iogap_prio_apply(const struct iogap_job *j)
{
	if (!j->prio.prio_set && !j->prio.class_set)
		return 0;
	if (syscall(SYS_ioprio_set, IOPRIO_WHO_PROCESS, 0, iogap_job_ioprio(j)) < 0)
		return -errno;
	return 0;
}

/* The stat entry of prio in direction d, added when new. */
static uint8_t prio_index(struct iogap_job_stat *st, unsigned d, uint16_t prio)
{
	unsigned i;

	for (i = 0; i < st->nr_clat_prio[d]; i++)
		if (st->clat_prio[d][i].ioprio == prio)
			return (uint8_t)i;
	st->clat_prio[d][i].ioprio = prio;   /* room checked by finalize */
	st->nr_clat_prio[d]++;
	return (uint8_t)i;
}

void iogap_prio_setup(struct iogap_prio_state *ps, const struct iogap_job *j, uint64_t seed,
		      struct iogap_job_stat *st)
{
	const struct iogap_prio_opts *p = &j->prio;

	memset(ps, 0, sizeof(*ps));
	ps->job = j;
	iogap_rand_seed(&ps->rnd, seed);
	st->ioprio = iogap_job_ioprio(j);
	for (unsigned d = 0; d < 2; d++) {
		ps->active[d] = (p->bssplit_set ? p->bssplit_nr[d] != 0 : p->cmdprio_percentage[d] != 0) &&
				(j->rw & (1u << d));
		if (!ps->active[d])
			continue;
		st->nr_clat_prio[d] = 0;
		prio_index(st, d, st->ioprio);   /* fio: the job's is entry 0 */
		if (!p->bssplit_set)
			prio_index(st, d, iogap_ioprio_value(p->cmdprio_class[d], p->cmdprio[d]));
		for (unsigned k = 0; p->bssplit_set && k < p->bssplit_nr[d]; k++)
			prio_index(st, d, p->bssplit[d][k].prio >= 0 ? (uint16_t)p->bssplit[d][k].prio :
				   iogap_ioprio_value(p->cmdprio_class[d], p->cmdprio[d]));
	}
}

static uint8_t find_index(const struct iogap_job_stat *st, unsigned d, uint16_t prio)
{
	for (unsigned i = 0; i < st->nr_clat_prio[d]; i++)
		if (st->clat_prio[d][i].ioprio == prio)
			return (uint8_t)i;
	return 0;
}

void iogap_prio_draw(struct iogap_prio_state *ps, const struct iogap_job_stat *st,
		     struct iogap_io *io)
{
	const struct iogap_prio_opts *p = &ps->job->prio;
	unsigned d = io->ddir, share = 0, r, cum = 0;
	uint16_t prio = 0;

	if (!p->bssplit_set)
		share = p->cmdprio_percentage[d];
	for (unsigned k = 0; p->bssplit_set && k < p->bssplit_nr[d]; k++)
		if (p->bssplit[d][k].bs == io->len)
			share += p->bssplit[d][k].perc;
	if (!share)
		return;
	r = (unsigned)iogap_rand_below(&ps->rnd, 100);   /* fio: rand_between(0, 99) */
	if (r >= share)
		return;
	if (!p->bssplit_set)
		prio = iogap_ioprio_value(p->cmdprio_class[d], p->cmdprio[d]);
	for (unsigned k = 0; p->bssplit_set && k < p->bssplit_nr[d]; k++) {
		if (p->bssplit[d][k].bs != io->len)
			continue;
		cum += p->bssplit[d][k].perc;
		if (r < cum) {
			prio = p->bssplit[d][k].prio >= 0 ? (uint16_t)p->bssplit[d][k].prio :
			       iogap_ioprio_value(p->cmdprio_class[d], p->cmdprio[d]);
			break;
		}
	}
	io->ioprio = prio;
	io->prio_index = find_index(st, d, prio);
}
