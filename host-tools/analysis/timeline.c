/* SPDX-License-Identifier: MIT */
/*
 * The request timeline: timeline.def's points and stages as tables, a
 * request's timeline from its pair or record, the stages of a point set
 * and the gap table's rows (docs/timeline.md).
 */
#include <stdio.h>
#include <string.h>

#include "timeline.h"

typedef bool (*iogap_tl_producer)(const struct iogap_tl_source *src, struct iogap_tl_stamp *st);

#define IOGAP_PRODUCER(fn, ...) \
	static bool fn(const struct iogap_tl_source *src, struct iogap_tl_stamp *st) __VA_ARGS__
#include "timeline.def"

enum { IOGAP_TL_NONE = -1 };
enum { IOGAP_TL_KIND_MAIN = 0, IOGAP_TL_KIND_DETAIL = 1 };

static const struct iogap_tl_point_info point_info[IOGAP_TL_POINTS] = {
#define IOGAP_POINT(id, side, order, clock, kind, bare_equiv, key, name, producer) \
	[IOGAP_TL_##id] = { IOGAP_TL_##side, order, IOGAP_TL_##clock,                \
			    IOGAP_TL_KIND_##kind == IOGAP_TL_KIND_DETAIL,              \
			    IOGAP_TL_##bare_equiv, key, name, (producer) != NULL },
#include "timeline.def"
};

static const iogap_tl_producer producers[IOGAP_TL_POINTS] = {
#define IOGAP_POINT(id, side, order, clock, kind, bare_equiv, key, name, producer) \
	[IOGAP_TL_##id] = producer,
#include "timeline.def"
};

static const bool kernel_fed[IOGAP_TL_POINTS] = {
#define IOGAP_KERNEL_FED(id) [IOGAP_TL_##id] = true,
#include "timeline.def"
};

static const bool host_kernel_fed[IOGAP_TL_POINTS] = {
#define IOGAP_HOST_KERNEL_FED(id) [IOGAP_TL_##id] = true,
#include "timeline.def"
};

static const bool filter_fed[IOGAP_TL_POINTS] = {
#define IOGAP_FILTER_FED(id) [IOGAP_TL_##id] = true,
#include "timeline.def"
};

/* +1: 0 means none (a designated initializer leaves the rest 0) */
static const int direct_equiv_plus1[IOGAP_TL_POINTS] = {
#define IOGAP_DIRECT_EQUIV(vm, bare) [IOGAP_TL_##vm] = IOGAP_TL_##bare + 1,
#include "timeline.def"
};

struct named_stage {
	int from, to;
	const char *key, *gap_key, *what, *where, *hint, *color;
	unsigned flags;
};

static const struct named_stage named[] = {
#define IOGAP_STAGE(from, to, key, gap_key, what, where, hint, color, flags) \
	{ IOGAP_TL_##from, IOGAP_TL_##to, key, gap_key, what, where, hint, color, flags },
#include "timeline.def"
};

/* Colours for stages the table does not name. */
static const char *const spare_colors[] = { "#76b7b2", "#b07aa1", "#ff9da7", "#9c755f",
					    "#bab0ac" };

const struct iogap_tl_point_info *iogap_tl_point(enum iogap_tl_point p)
{
	return &point_info[p];
}

iogap_tl_mask iogap_timeline_produced_by(enum iogap_tl_side side, bool kernel, bool host_kernel,
					 bool filters)
{
	iogap_tl_mask m = 0;

	for (int p = 0; p < IOGAP_TL_POINTS; p++)
		if (point_info[p].side == side && point_info[p].produced &&
		    (kernel || !kernel_fed[p]) && (host_kernel || !host_kernel_fed[p]) &&
		    (filters || !filter_fed[p]))
			m |= (iogap_tl_mask)1 << p;
	return m;
}

iogap_tl_mask iogap_timeline_produced_kernel(enum iogap_tl_side side)
{
	return iogap_timeline_produced_by(side, true, false, true);
}

iogap_tl_mask iogap_timeline_produced(enum iogap_tl_side side)
{
	return iogap_timeline_produced_by(side, false, false, true);
}

/* Does the point set have a filter point (QEMU's block layer in the path)? */
static bool has_filter_points(iogap_tl_mask points)
{
	for (int p = 0; p < IOGAP_TL_POINTS; p++)
		if (filter_fed[p] && points & ((iogap_tl_mask)1 << p))
			return true;
	return false;
}

static void stamp_all(const struct iogap_tl_source *src, struct iogap_timeline *tl)
{
	tl->present = 0;
	for (int p = 0; p < IOGAP_TL_POINTS; p++)
		if (point_info[p].side == tl->side && producers[p] && producers[p](src, &tl->at[p]))
			tl->present |= (iogap_tl_mask)1 << p;
}

void iogap_timeline_from_pair(const struct iogap_pair *p, struct iogap_timeline *tl)
{
	iogap_timeline_from_pair_kernel(p, p->kernel, tl);
}

void iogap_timeline_from_pair_kernel(const struct iogap_pair *p,
				     const struct iogap_trace_record *kernel,
				     struct iogap_timeline *tl)
{
	struct iogap_tl_source src = { p, p->guest, kernel, p->host_kernel };

	tl->side = IOGAP_TL_VM;
	tl->job = p->guest->job;
	tl->op = p->guest->op;
	tl->flags = p->guest->flags;
	tl->result = p->guest->result;
	stamp_all(&src, tl);
}

void iogap_timeline_from_record(const struct iogap_trace_record *r, struct iogap_timeline *tl)
{
	iogap_timeline_from_record_kernel(r, NULL, tl);
}

void iogap_timeline_from_record_kernel(const struct iogap_trace_record *r,
				       const struct iogap_trace_record *kernel,
				       struct iogap_timeline *tl)
{
	struct iogap_tl_source src = { NULL, r, kernel, NULL };

	tl->side = IOGAP_TL_BARE;
	tl->job = r->job;
	tl->op = r->op;
	tl->flags = r->flags;
	tl->result = r->result;
	stamp_all(&src, tl);
}

int64_t iogap_timeline_span_ns(const struct iogap_timeline *tl, int from, int to)
{
	if (point_info[from].clock == point_info[to].clock)
		return (int64_t)(tl->at[to].own - tl->at[from].own);
	return (int64_t)(tl->at[to].t - tl->at[from].t);
}

/* The points of mask on side, in time order; returns how many. */
static size_t ordered_points(enum iogap_tl_side side, iogap_tl_mask mask, int *out)
{
	size_t n = 0;

	for (int p = 0; p < IOGAP_TL_POINTS; p++) {
		size_t i;

		if (point_info[p].side != side || !(mask & ((iogap_tl_mask)1 << p)))
			continue;
		for (i = n; i > 0 && point_info[out[i - 1]].order > point_info[p].order; i--)
			out[i] = out[i - 1];
		out[i] = p;
		n++;
	}
	return n;
}

static const struct named_stage *find_named(int from, int to)
{
	for (size_t i = 0; i < sizeof(named) / sizeof(named[0]); i++)
		if (named[i].from == from && named[i].to == to)
			return &named[i];
	return NULL;
}

/* A stage from the table, or named after its points. */
static void describe(struct iogap_stage *s, int from, int to, size_t spare)
{
	const struct named_stage *ns = find_named(from, to);
	const struct iogap_tl_point_info *a = &point_info[from], *b = &point_info[to];

	s->from = from;
	s->to = to;
	s->within = -1;
	s->flags = a->clock != b->clock ? IOGAP_STAGE_CROSSING : 0;
	if (ns) {
		snprintf(s->key, sizeof(s->key), "%s", ns->key);
		snprintf(s->gap_key, sizeof(s->gap_key), "%s", ns->gap_key);
		snprintf(s->what, sizeof(s->what), "%s", ns->what);
		snprintf(s->where, sizeof(s->where), "%s", ns->where);
		s->hint = ns->hint;
		s->color = ns->color;
		s->flags |= ns->flags;
		return;
	}
	snprintf(s->key, sizeof(s->key), "%s->%s", a->key, b->key);
	memcpy(s->gap_key, s->key, sizeof(s->gap_key));
	snprintf(s->what, sizeof(s->what), "the time from %s to %s", a->name, b->name);
	snprintf(s->where, sizeof(s->where), "between %s and %s", a->name, b->name);
	s->hint = "no advice for this stage yet";
	s->color = spare_colors[spare % (sizeof(spare_colors) / sizeof(spare_colors[0]))];
}

void iogap_timeline_stages(enum iogap_tl_side side, iogap_tl_mask points,
			   struct iogap_stages *out)
{
	int pts[IOGAP_TL_POINTS];
	size_t np = ordered_points(side, points, pts), spare = 0;
	int prev = -1;

	memset(out, 0, sizeof(*out));
	out->side = side;
	out->points = points;
	out->first = out->last = -1;
	for (size_t i = 0; i < np && out->n < IOGAP_TL_MAX_STAGES; i++) {
		int p = pts[i];
		struct iogap_stage *s;

		if (prev < 0) {
			prev = out->first = out->last = p;
			continue;
		}
		s = &out->s[out->n++];
		describe(s, prev, p, spare);
		spare += !find_named(prev, p);
		if (point_info[p].detail) {
			/* inside the stage that starts at prev: the next main one */
			s->flags |= IOGAP_STAGE_DETAIL;
			s->within = (int)out->n;
			continue;
		}
		prev = out->last = p;
	}
	for (size_t i = 0; i < out->n; i++)
		if (out->s[i].within >= (int)out->n)
			out->s[i].within = -1;
}

int iogap_timeline_find_stage(const struct iogap_stages *ss, int from, int to)
{
	for (size_t i = 0; i < ss->n; i++)
		if (!(ss->s[i].flags & IOGAP_STAGE_DETAIL) && ss->s[i].from == from &&
		    ss->s[i].to == to)
			return (int)i;
	return -1;
}

/* The bare point equivalent to VM point p, if the bare run has it; -1 if
 * not.  A VM without filter points compares its own points directly. */
static int bare_anchor(const struct iogap_stages *vm, const struct iogap_stages *bare, int p)
{
	int e = has_filter_points(vm->points) ? point_info[p].bare_equiv :
		direct_equiv_plus1[p] - 1;

	return e >= 0 && bare && (bare->points & ((iogap_tl_mask)1 << e)) ? e : -1;
}

/* The last VM stage of the gap row starting at stage i, and the bare points
 * it compares with (*bf, *bt; -1: only the VM has it). */
static size_t row_end(const struct iogap_stages *vm, const struct iogap_stages *bare, size_t i,
		      int *bf, int *bt)
{
	int a = bare_anchor(vm, bare, vm->s[i].from);

	*bf = *bt = -1;
	for (size_t j = i; a >= 0 && j < vm->n; j++) {
		int b = vm->s[j].flags & IOGAP_STAGE_DETAIL ? -1 : bare_anchor(vm, bare, vm->s[j].to);

		if (b >= 0) {
			*bf = a;
			*bt = b;
			return j;
		}
	}
	return i;
}

void iogap_timeline_gap_rows(const struct iogap_stages *vm, const struct iogap_stages *bare,
			     struct iogap_gap_rows *out)
{
	size_t spare = 0;

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < vm->n; i++) {
		struct iogap_gap_row *r;

		if (vm->s[i].flags & IOGAP_STAGE_DETAIL)
			continue;
		r = &out->r[out->n++];
		r->first = i;
		r->last = row_end(vm, bare, i, &r->bare_from, &r->bare_to);
		if (r->first == r->last)
			r->stage = vm->s[i];
		else
			describe(&r->stage, vm->s[i].from, vm->s[r->last].to, spare++);
		r->crossing = (r->stage.flags & IOGAP_STAGE_CROSSING) != 0;
		i = r->last;
	}
}
