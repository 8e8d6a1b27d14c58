/* SPDX-License-Identifier: MIT */
/*
 * fio: fio's own output read into one model (fio_import.h: text, JSON,
 * terse) and `iogap import`, which writes it back as fio JSON.  Depends on
 * analysis/ (JSON parser) and the probe's output writers.
 */
#ifndef IOGAP_FIO_H
#define IOGAP_FIO_H

/* `iogap import ...` (docs/reports.md); argv[0] is "import". */
int iogap_cmd_import(int argc, char **argv);

#endif
