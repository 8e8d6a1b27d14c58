/* SPDX-License-Identifier: MIT */
/*
 * `iogap report` built with tests/report/extra_point.def added to the
 * timeline (test_extra_point.sh): nothing but the report command.
 */
#include "presentation.h"

int main(int argc, char **argv)
{
	return iogap_cmd_report(argc, argv);
}
