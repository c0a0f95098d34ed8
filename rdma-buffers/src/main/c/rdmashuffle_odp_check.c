/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * Whether a device answers RDMA READs of on-demand memory with the bytes asked for: a device may
 * report on-demand paging for RC READ and still get it wrong (Linux's Soft-RoCE, 6.14 to at least
 * 7.3, returns the bytes at the start of each page). The check READs three ranges of a region
 * registered with IBV_ACCESS_ON_DEMAND through two RC queue pairs of the device connected to each
 * other (the device's own loopback: no network, no peer, no RDMA-CM): inside the second page at
 * an offset, across a page boundary, and all three pages; and compares every byte.
 */
#define _GNU_SOURCE
#include "disni.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <infiniband/verbs.h>

#define CHECK_PAGES 3
#define CHECK_TIMEOUT_NS (10LL * 1000 * 1000 * 1000)

struct check {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_qp *qp[2];
	struct ibv_mr *odp_mr, *local_mr;
	uint8_t *odp_buf, *local_buf;
	size_t size;
	uint8_t port;
	int gid_index;
	struct ibv_port_attr port_attr;
	char *why;
	size_t why_len;
};

static int say(struct check *c, int rc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->why, c->why_len, fmt, ap);
	va_end(ap);
	return rc;
}

static uint8_t pattern(size_t i)
{
	return (uint8_t)(i * 7 + (i >> 12) * 13 + 1);
}

/* The first ACTIVE port; for RoCE the GID the check addresses: RoCE v2 with an IPv4 address
 * first, then any RoCE v2, then any valid one. */
static int pick_port(struct check *c)
{
	struct ibv_device_attr dev;
	int best = -1, best_rank = 0;

	if (ibv_query_device(c->ctx, &dev))
		return say(c, -errno, "ibv_query_device: %s", strerror(errno));
	for (int p = 1; p <= dev.phys_port_cnt; p++) {
		if (ibv_query_port(c->ctx, (uint8_t)p, &c->port_attr) == 0 &&
		    c->port_attr.state == IBV_PORT_ACTIVE) {
			c->port = (uint8_t)p;
			break;
		}
	}
	if (c->port == 0)
		return say(c, -ENETDOWN, "no ACTIVE port");
	c->gid_index = 0;
	if (c->port_attr.link_layer != IBV_LINK_LAYER_ETHERNET)
		return 0;
	for (int i = 0; i < c->port_attr.gid_tbl_len; i++) {
		struct ibv_gid_entry e;
		int rank;

		if (ibv_query_gid_ex(c->ctx, c->port, (uint32_t)i, &e, 0))
			continue;
		if (e.gid_type == IBV_GID_TYPE_ROCE_V2) {
			static const uint8_t v4[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

			rank = memcmp(e.gid.raw, v4, sizeof v4) == 0 ? 3 : 2;
		} else {
			rank = 1;
		}
		if (rank > best_rank) {
			best = i;
			best_rank = rank;
		}
	}
	if (best < 0)
		return say(c, -ENOENT, "port %d has no GID", c->port);
	c->gid_index = best;
	return 0;
}

static int connect_qp(struct check *c, struct ibv_qp *qp, uint32_t remote_qpn)
{
	struct ibv_qp_attr a;
	union ibv_gid gid;

	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_INIT;
	a.port_num = c->port;
	a.qp_access_flags = IBV_ACCESS_REMOTE_READ;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				   IBV_QP_ACCESS_FLAGS))
		return say(c, -errno, "queue pair to INIT: %s", strerror(errno));
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTR;
	a.path_mtu = c->port_attr.active_mtu;
	a.dest_qp_num = remote_qpn;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.port_num = c->port;
	a.ah_attr.dlid = c->port_attr.lid;
	if (c->port_attr.link_layer == IBV_LINK_LAYER_ETHERNET) {
		if (ibv_query_gid(c->ctx, c->port, c->gid_index, &gid))
			return say(c, -errno, "ibv_query_gid: %s", strerror(errno));
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = gid;
		a.ah_attr.grh.sgid_index = (uint8_t)c->gid_index;
		a.ah_attr.grh.hop_limit = 64;
	}
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
				   IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
				   IBV_QP_MIN_RNR_TIMER))
		return say(c, -errno, "queue pair to RTR (port %d, GID index %d): %s", c->port,
			   c->gid_index, strerror(errno));
	memset(&a, 0, sizeof a);
	a.qp_state = IBV_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 6;
	a.rnr_retry = 6;
	a.max_rd_atomic = 1;
	if (ibv_modify_qp(qp, &a, IBV_QP_STATE | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT |
				   IBV_QP_RNR_RETRY | IBV_QP_SQ_PSN | IBV_QP_MAX_QP_RD_ATOMIC))
		return say(c, -errno, "queue pair to RTS: %s", strerror(errno));
	return 0;
}

static int setup(struct check *c)
{
	struct ibv_qp_init_attr init;
	long page = sysconf(_SC_PAGESIZE);
	int rc = pick_port(c);

	if (rc)
		return rc;
	c->size = (size_t)page * CHECK_PAGES;
	c->pd = ibv_alloc_pd(c->ctx);
	c->cq = c->pd == NULL ? NULL : ibv_create_cq(c->ctx, 8, NULL, NULL, 0);
	if (c->cq == NULL)
		return say(c, -errno, "protection domain or completion queue: %s", strerror(errno));
	memset(&init, 0, sizeof init);
	init.send_cq = c->cq;
	init.recv_cq = c->cq;
	init.qp_type = IBV_QPT_RC;
	init.cap.max_send_wr = 4;
	init.cap.max_recv_wr = 1;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	for (int i = 0; i < 2; i++) {
		c->qp[i] = ibv_create_qp(c->pd, &init);
		if (c->qp[i] == NULL)
			return say(c, -errno, "ibv_create_qp: %s", strerror(errno));
	}
	rc = connect_qp(c, c->qp[0], c->qp[1]->qp_num);
	if (rc == 0)
		rc = connect_qp(c, c->qp[1], c->qp[0]->qp_num);
	if (rc)
		return rc;
	c->odp_buf = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	c->local_buf = mmap(NULL, c->size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (c->odp_buf == MAP_FAILED || c->local_buf == MAP_FAILED) {
		c->odp_buf = c->odp_buf == MAP_FAILED ? NULL : c->odp_buf;
		c->local_buf = c->local_buf == MAP_FAILED ? NULL : c->local_buf;
		return say(c, -ENOMEM, "mmap of %zu bytes failed", c->size);
	}
	for (size_t i = 0; i < c->size; i++)
		c->odp_buf[i] = pattern(i);
	c->odp_mr = ibv_reg_mr(c->pd, c->odp_buf, c->size,
			       IBV_ACCESS_REMOTE_READ | IBV_ACCESS_ON_DEMAND);
	if (c->odp_mr == NULL)
		return say(c, -errno, "on-demand registration refused: %s", strerror(errno));
	c->local_mr = ibv_reg_mr(c->pd, c->local_buf, c->size, IBV_ACCESS_LOCAL_WRITE);
	if (c->local_mr == NULL)
		return say(c, -errno, "registration of the READ target refused: %s", strerror(errno));
	return 0;
}

static long long now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* READs [offset, offset + length) of the on-demand region; 0 right, 1 wrong, negative errno. */
static int read_range(struct check *c, size_t offset, size_t length)
{
	struct ibv_sge sge = { .addr = (uintptr_t)c->local_buf, .length = (uint32_t)length,
			       .lkey = c->local_mr->lkey };
	struct ibv_send_wr wr, *bad;
	struct ibv_wc wc;
	long long deadline = now_ns() + CHECK_TIMEOUT_NS;
	int n;

	memset(c->local_buf, 0, length);
	memset(&wr, 0, sizeof wr);
	wr.opcode = IBV_WR_RDMA_READ;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.wr.rdma.remote_addr = (uintptr_t)c->odp_buf + offset;
	wr.wr.rdma.rkey = c->odp_mr->rkey;
	if (ibv_post_send(c->qp[0], &wr, &bad))
		return say(c, -errno, "ibv_post_send: %s", strerror(errno));
	while ((n = ibv_poll_cq(c->cq, 1, &wc)) == 0) {
		if (now_ns() > deadline)
			return say(c, -ETIMEDOUT, "a READ of %zu bytes got no completion in 10 s", length);
		usleep(100);
	}
	if (n < 0)
		return say(c, -EIO, "ibv_poll_cq failed");
	if (wc.status != IBV_WC_SUCCESS)
		return say(c, -EIO, "READ of %zu bytes at offset %zu failed: %s", length, offset,
			   ibv_wc_status_str(wc.status));
	for (size_t i = 0; i < length; i++) {
		if (c->local_buf[i] != pattern(offset + i))
			return say(c, 1,
				   "a READ of %zu bytes at offset %zu of on-demand memory returned "
				   "wrong bytes (first at %zu: 0x%02x, not 0x%02x)",
				   length, offset, i, c->local_buf[i], pattern(offset + i));
	}
	return 0;
}

static void teardown(struct check *c)
{
	if (c->local_mr)
		ibv_dereg_mr(c->local_mr);
	if (c->odp_mr)
		ibv_dereg_mr(c->odp_mr);
	for (int i = 0; i < 2; i++)
		if (c->qp[i])
			ibv_destroy_qp(c->qp[i]);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->odp_buf)
		munmap(c->odp_buf, c->size);
	if (c->local_buf)
		munmap(c->local_buf, c->size);
}

int rs_odp_read_check(struct ibv_context *ctx, char *why, size_t why_len)
{
	struct check c;
	long page = sysconf(_SC_PAGESIZE);
	int rc;

	memset(&c, 0, sizeof c);
	c.ctx = ctx;
	c.why = why;
	c.why_len = why_len;
	rc = setup(&c);
	if (rc == 0)
		rc = read_range(&c, (size_t)page + 100, 64);
	if (rc == 0)
		rc = read_range(&c, (size_t)page - 100, 300);
	if (rc == 0)
		rc = read_range(&c, 0, c.size);
	if (rc == 0)
		say(&c, 0, "READs of on-demand memory returned the bytes asked for (port %d, %d-byte MTU)",
		    c.port, 128 << c.port_attr.active_mtu);
	teardown(&c);
	return rc;
}
