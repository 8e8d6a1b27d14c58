/* SPDX-License-Identifier: MIT */
/* Prints iogap_target_check()'s answer for each argument: "RC\tWHY". */
#include <stdio.h>

#include "safety.h"

int main(int argc, char **argv)
{
	char why[1024];

	for (int i = 1; i < argc; i++) {
		int rc = iogap_target_check(argv[i], why, sizeof(why));

		printf("%d\t%s\n", rc, why);
	}
	return 0;
}
