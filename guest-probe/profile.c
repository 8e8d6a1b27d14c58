/* SPDX-License-Identifier: MIT */
/*
 * fio's profile.c and its load_profile/add_job_opts (init.c): the
 * profiles, their options, and the jobs they generate (profile.h).
 */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "profile.h"
#include "util.h"

static const struct iogap_profile *const profiles[] = {
	&iogap_profile_tiobench,
	&iogap_profile_act,
	NULL,
};

static const char *wanted;     /* --profile's value */
static FILE *report_out;

void iogap_profile_set_output(FILE *out)
{
	report_out = out;
}

FILE *iogap_profile_output(void)
{
	return report_out ? report_out : stdout;
}

int iogap_profile_cmd_add(struct iogap_profile_cmd *cmd, const char *fmt, ...)
{
	char **opt = realloc(cmd->opt, (cmd->nr + 1) * sizeof(*opt));
	va_list ap;
	int r;

	if (!opt)
		return -1;
	cmd->opt = opt;
	va_start(ap, fmt);
	r = vasprintf(&opt[cmd->nr], fmt, ap);
	va_end(ap);
	if (r < 0)
		return -1;
	cmd->nr++;
	return 0;
}

static void cmd_free(struct iogap_profile_cmd *cmd)
{
	for (size_t i = 0; i < cmd->nr; i++)
		free(cmd->opt[i]);
	free(cmd->opt);
}

/* Parse val as o's type into the profile's settings.  0, or -1. */
static int store(const struct iogap_profile *p, const struct iogap_profile_opt *o,
		 const char *val)
{
	char *dst = (char *)p->settings + o->off;
	unsigned long long n;
	uint64_t v;

	switch (o->type) {
	case IOGAP_POPT_STR:
		if (!val)
			return -1;
		*(const char **)dst = val;
		return 0;
	case IOGAP_POPT_INT:
		if (!val || iogap_parse_size(val, &v) || v > UINT32_MAX)
			return -1;
		*(unsigned *)dst = (unsigned)v;
		return 0;
	case IOGAP_POPT_SIZE:
		return !val || iogap_parse_size(val, (uint64_t *)dst) ? -1 : 0;
	case IOGAP_POPT_TIME_US:
		if (!val || iogap_parse_time_ns(val, 1000, &v))
			return -1;
		*(uint64_t *)dst = v / 1000;
		return 0;
	case IOGAP_POPT_SET:
		if (val && iogap_parse_uint(val, UINT32_MAX, &n))
			return -1;
		*(unsigned *)dst = val ? (unsigned)n : 1;
		return 0;
	}
	return -1;
}

/* fio fills every option's default when it sets up its first job,
 * before reading the command line. */
static void set_defaults(void)
{
	static bool done;

	if (done)
		return;
	done = true;
	for (size_t i = 0; profiles[i]; i++)
		for (const struct iogap_profile_opt *o = profiles[i]->opts; o->name; o++)
			if (o->def)
				store(profiles[i], o, o->def);
}

static const struct iogap_profile *find_profile(const char *name)
{
	for (size_t i = 0; profiles[i]; i++)
		if (!strcmp(profiles[i]->name, name))
			return profiles[i];
	return NULL;
}

/* As fio, every profile's options are known whichever profile runs. */
int iogap_profile_cli_option(const char *key, const char *val)
{
	set_defaults();
	if (!strcmp(key, "profile")) {
		if (!val || !*val) {
			fprintf(stderr, "iogap-probe: --profile needs a profile name (tiobench, act)\n");
			return -1;
		}
		wanted = val;
		return 1;
	}
	for (size_t i = 0; profiles[i]; i++) {
		for (const struct iogap_profile_opt *o = profiles[i]->opts; o->name; o++) {
			if (o->shadowed || strcmp(o->name, key))
				continue;
			if (store(profiles[i], o, val) == 0)
				return 1;
			fprintf(stderr, "iogap-probe: --%s: bad value '%s' (%s option: %s)\n", key,
				val ? val : "", profiles[i]->name, o->help);
			return -1;
		}
	}
	return 0;
}

const struct iogap_profile *iogap_profile_selected(void)
{
	return wanted ? find_profile(wanted) : NULL;
}

/* One generated option through the command-line parser.  0, or -1. */
static int add_option(const struct iogap_profile *p, char *opt, struct iogap_job_list *target,
		      struct iogap_job *global, bool *have_global, char *err, size_t errlen)
{
	char *eq = strchr(opt, '=');
	char msg[1024];

	if (eq)
		*eq = '\0';
	if (!iogap_cmdline_add(target, global, have_global, opt, eq ? eq + 1 : NULL, msg,
			       sizeof(msg)))
		return 0;
	return iogap_seterr(err, errlen, "profile %s: %s", p->name, msg);
}

/* fio's load_profile: the selected profile's job options into cmd.  0,
 * or -1 with a message in err. */
static int generate(const struct iogap_profile **pp, struct iogap_profile_cmd *cmd, char *err,
		    size_t errlen)
{
	set_defaults();
	*pp = find_profile(wanted);
	if (!*pp)
		return iogap_seterr(err, errlen, "profile '%s' not found (fio's profiles: tiobench, "
				    "act)", wanted);
	if ((*pp)->prep(cmd)) {
		cmd_free(cmd);
		return iogap_seterr(err, errlen, "profile %s prep failed", (*pp)->name);
	}
	return 0;
}

int iogap_profile_showcmd(FILE *out, char *err, size_t errlen)
{
	const struct iogap_profile *p;
	struct iogap_profile_cmd cmd = { 0 };

	if (!wanted)
		return 0;
	if (generate(&p, &cmd, err, errlen))
		return -1;
	fputs("fio ", out);
	for (size_t i = 0; i < cmd.nr; i++)
		fprintf(out, "--%s ", cmd.opt[i]);
	fputc('\n', out);
	cmd_free(&cmd);
	return 0;
}

int iogap_profile_add_jobs(struct iogap_job_list *jobs, struct iogap_job *global,
			   bool *have_global, char *err, size_t errlen)
{
	const struct iogap_profile *p;
	struct iogap_profile_cmd cmd = { 0 };
	struct iogap_job_list none = { 0 };   /* so fio's global options reach *global */
	bool in_global = true;
	int ret = 0;

	if (!wanted)
		return 0;
	if (generate(&p, &cmd, err, errlen))
		return -1;
	/* fio's add_job_opts: a name= starts a job, what comes before it
	 * sets the defaults of the jobs after it */
	for (size_t i = 0; i < cmd.nr && !ret; i++) {
		in_global = in_global && strncmp(cmd.opt[i], "name", 4);
		ret = add_option(p, cmd.opt[i], in_global ? &none : jobs, global, have_global, err,
				 errlen);
	}
	cmd_free(&cmd);
	return ret;
}
