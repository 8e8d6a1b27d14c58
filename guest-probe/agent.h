/* SPDX-License-Identifier: MIT */
/* The guest side of iogap's control channel (see agent.c). */
#ifndef IOGAP_AGENT_H
#define IOGAP_AGENT_H

/* Serve requests on the virtio-serial port until QUIT or EOF; 0 or 1. */
int iogap_agent_main(const char *port, const char *version);

#endif
