/* SPDX-License-Identifier: MIT */
/*
 * PCI passthrough validation (docs/passthrough.md): the host's setup for an
 * assigned device (vfio-pci, IOMMU group and mode, interrupt remapping and
 * posted interrupts, NUMA placement, hugepages, MSI-X), the device as a
 * guest sees it, and whether a bare-metal/VM pair of fio outputs can be
 * compared.
 */
#ifndef IOGAP_PASSTHROUGH_H
#define IOGAP_PASSTHROUGH_H

/* `iogap passthrough check ...`; argv[0] is "passthrough".  Exit status:
 * 0 pass, 1 fail (a warning or worse), 2 usage or unusable input. */
int iogap_cmd_passthrough(int argc, char **argv);

#endif
