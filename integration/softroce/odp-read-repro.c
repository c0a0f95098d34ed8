/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * Minimal reproduction, plain libibverbs and librdmacm, no rdma-shuffle code: whether an RC RDMA
 * READ of a memory region registered with on-demand paging (IBV_ACCESS_ON_DEMAND) returns the
 * bytes at the address asked for, next to the same READs of a pinned region. Both ends in one
 * process: a server on the first address serves two page-aligned buffers holding the same
 * pattern (one registered on demand, one pinned, both REMOTE_READ only), a client on the second
 * address READs ranges of each and compares every byte with the pattern.
 *
 *   odp-read-repro SERVER_ADDR CLIENT_ADDR [PORT]
 *
 * For each READ it prints the remote offset, the length, the mismatching bytes, and whether what
 * came equals the bytes at the start of the pages read instead (offset ignored). Exit status 0:
 * every READ of both regions right; 1: some READ returned wrong bytes; 2: setup failed; 3: the
 * device refused an on-demand registration (only the pinned READs ran).
 *
 * Build: gcc -O2 -Wall -o odp-read-repro odp-read-repro.c -lrdmacm -libverbs -lpthread
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <rdma/rdma_cma.h>
#include <rdma/rdma_verbs.h>

#define SIZE (1 << 20)
#define PAGE 4096

static const char *server_addr, *client_addr, *port = "7471";
static uint8_t *odp_buf, *pinned_buf;
static struct ibv_mr *odp_mr, *pinned_mr;
static int odp_refused;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t ready_cond = PTHREAD_COND_INITIALIZER;
static int ready; /* 1 listening, -1 failed */

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + (i >> 8) * 13 + 1);
}

static void set_ready(int v)
{
	pthread_mutex_lock(&lock);
	ready = v;
	pthread_cond_broadcast(&ready_cond);
	pthread_mutex_unlock(&lock);
}

static void *serve(void *arg)
{
	struct rdma_addrinfo hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *res;
	struct rdma_cm_id *listen_id, *id;
	struct ibv_qp_init_attr attr = { .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						  .max_send_sge = 1, .max_recv_sge = 1 },
					 .sq_sig_all = 1, .qp_type = IBV_QPT_RC };

	(void)arg;
	if (rdma_getaddrinfo(server_addr, port, &hints, &res) ||
	    rdma_create_ep(&listen_id, res, NULL, NULL) || rdma_listen(listen_id, 1)) {
		perror("server: listen");
		set_ready(-1);
		return NULL;
	}
	set_ready(1);
	if (rdma_get_request(listen_id, &id) || rdma_create_qp(id, NULL, &attr)) {
		perror("server: request");
		return NULL;
	}
	odp_mr = ibv_reg_mr(id->pd, odp_buf, SIZE, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND);
	if (odp_mr == NULL) {
		fprintf(stderr, "server: on-demand ibv_reg_mr refused: %s\n", strerror(errno));
		odp_refused = 1;
	}
	pinned_mr = ibv_reg_mr(id->pd, pinned_buf, SIZE, IBV_ACCESS_REMOTE_READ);
	if (pinned_mr == NULL) {
		perror("server: pinned ibv_reg_mr");
		return NULL;
	}
	if (rdma_accept(id, NULL))
		perror("server: accept");
	return NULL;
}

/* READs [off, off+len) of the region; returns the number of wrong bytes (-1 on failure). */
static long read_range(struct rdma_cm_id *id, struct ibv_mr *target_mr, uint8_t *target,
		       struct ibv_mr *remote, const char *what, size_t off, size_t len)
{
	struct ibv_wc wc;
	long wrong = 0, first = -1, from_page_start = 0;

	memset(target, 0xEE, len);
	if (rdma_post_read(id, NULL, target, len, target_mr, IBV_SEND_SIGNALED,
			   (uint64_t)(uintptr_t)remote->addr + off, remote->rkey)) {
		perror("client: post");
		return -1;
	}
	if (rdma_get_send_comp(id, &wc) <= 0 || wc.status != IBV_WC_SUCCESS) {
		fprintf(stderr, "client: %s READ off %zu len %zu: completion %s\n", what, off, len,
			ibv_wc_status_str(wc.status));
		return -1;
	}
	for (size_t i = 0; i < len; i++) {
		if (target[i] != pattern(off + i)) {
			wrong++;
			if (first < 0)
				first = (long)i;
		}
	}
	if (wrong > 0) {
		/* what would have come had the offset within the first page been ignored */
		size_t page_start = off & ~(size_t)(PAGE - 1);
		size_t n = len < PAGE - (off - page_start) ? len : PAGE - (off - page_start);

		from_page_start = 1;
		for (size_t i = 0; i < n; i++)
			if (target[i] != pattern(page_start + i))
				from_page_start = 0;
	}
	printf("%-7s READ offset %7zu length %7zu: %s", what, off, len, wrong ? "WRONG" : "right");
	if (wrong)
		printf(" (%ld of %zu bytes wrong, first at %ld: got 0x%02x, want 0x%02x; first page's "
		       "bytes %s those at the page's start)",
		       wrong, len, first, target[first], pattern(off + first),
		       from_page_start ? "ARE" : "are not");
	printf("\n");
	return wrong;
}

int main(int argc, char **argv)
{
	static const size_t ranges[][2] = { { 0, 64 },	   { 100, 64 },	  { 4000, 200 },
					    { 0, 4096 },   { 1024, 1024 }, { 1000, 9000 },
					    { 0, 65536 },  { 12345, 65536 } };
	struct rdma_addrinfo hints = { .ai_port_space = RDMA_PS_TCP }, *res;
	struct ibv_qp_init_attr attr = { .cap = { .max_send_wr = 4, .max_recv_wr = 4,
						  .max_send_sge = 1, .max_recv_sge = 1 },
					 .sq_sig_all = 1, .qp_type = IBV_QPT_RC };
	struct rdma_cm_id *id;
	struct ibv_mr *target_mr;
	uint8_t *target;
	pthread_t server;
	long wrong = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: %s SERVER_ADDR CLIENT_ADDR [PORT]\n", argv[0]);
		return 2;
	}
	server_addr = argv[1];
	client_addr = argv[2];
	if (argc > 3)
		port = argv[3];
	if (posix_memalign((void **)&odp_buf, PAGE, SIZE) ||
	    posix_memalign((void **)&pinned_buf, PAGE, SIZE) ||
	    posix_memalign((void **)&target, PAGE, SIZE))
		return 2;
	for (size_t i = 0; i < SIZE; i++)
		odp_buf[i] = pinned_buf[i] = pattern(i);

	pthread_create(&server, NULL, serve, NULL);
	pthread_mutex_lock(&lock);
	while (ready == 0)
		pthread_cond_wait(&ready_cond, &lock);
	pthread_mutex_unlock(&lock);
	if (ready < 0)
		return 2;

	struct rdma_addrinfo src_hints = { .ai_flags = RAI_PASSIVE, .ai_port_space = RDMA_PS_TCP };
	struct rdma_addrinfo *src;
	if (rdma_getaddrinfo(client_addr, NULL, &src_hints, &src))
		return 2;
	hints.ai_src_addr = src->ai_src_addr;
	hints.ai_src_len = src->ai_src_len;
	if (rdma_getaddrinfo(server_addr, port, &hints, &res) ||
	    rdma_create_ep(&id, res, NULL, &attr)) {
		perror("client: create");
		return 2;
	}
	target_mr = ibv_reg_mr(id->pd, target, SIZE, IBV_ACCESS_LOCAL_WRITE);
	if (target_mr == NULL || rdma_connect(id, NULL)) {
		perror("client: connect");
		return 2;
	}
	pthread_join(server, NULL);
	if (pinned_mr == NULL)
		return 2;
	printf("client device %s, server device %s; regions page-aligned\n",
	       ibv_get_device_name(id->verbs->device),
	       ibv_get_device_name(pinned_mr->context->device));
	for (size_t r = 0; r < sizeof ranges / sizeof ranges[0]; r++) {
		long w = read_range(id, target_mr, target, pinned_mr, "pinned", ranges[r][0],
				    ranges[r][1]);
		if (w < 0)
			return 2;
		wrong += w;
		if (odp_mr == NULL)
			continue;
		w = read_range(id, target_mr, target, odp_mr, "odp", ranges[r][0], ranges[r][1]);
		if (w < 0)
			return 2;
		wrong += w;
	}
	rdma_disconnect(id);
	return wrong ? 1 : odp_refused ? 3 : 0;
}
