/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * Verbs natives of NativeDispatcher (DiSNI's RdmaVerbsNat and its stateful verb calls):
 * protection domains, completion channels and queues, memory regions, posting work requests,
 * polling completions, and the getters of DiSNI's Nat* objects.
 */
#define _GNU_SOURCE
#include "disni.h"

#include <errno.h>
#include <stdlib.h>
#include <infiniband/verbs.h>

/* Our SGE layout is struct ibv_sge: lists of them go to rdma-core unchanged. */
_Static_assert(sizeof(struct ibv_sge) == SGE_SIZE, "struct ibv_sge layout");
_Static_assert(__builtin_offsetof(struct ibv_sge, addr) == SGE_ADDR, "ibv_sge.addr");
_Static_assert(__builtin_offsetof(struct ibv_sge, length) == SGE_LENGTH, "ibv_sge.length");
_Static_assert(__builtin_offsetof(struct ibv_sge, lkey) == SGE_LKEY, "ibv_sge.lkey");
/* Values DiSNI passes through unchanged (IbvSendWR, IbvMr, IbvWC constants). */
_Static_assert(IBV_WR_RDMA_WRITE == 0 && IBV_WR_SEND == 2 && IBV_WR_RDMA_READ == 4,
	       "IbvSendWR opcodes");
_Static_assert(IBV_WR_ATOMIC_CMP_AND_SWP == 5 && IBV_WR_ATOMIC_FETCH_AND_ADD == 6,
	       "IbvSendWR atomic opcodes");
_Static_assert(IBV_SEND_FENCE == 1 && IBV_SEND_SIGNALED == 2 && IBV_SEND_SOLICITED == 4 &&
		       IBV_SEND_INLINE == 8,
	       "IbvSendWR send flags");
_Static_assert(IBV_ACCESS_LOCAL_WRITE == 1 && IBV_ACCESS_REMOTE_WRITE == 2 &&
		       IBV_ACCESS_REMOTE_READ == 4 && IBV_ACCESS_REMOTE_ATOMIC == 8,
	       "IbvMr access flags");
_Static_assert(IBV_WC_SUCCESS == 0 && IBV_WC_REM_ACCESS_ERR == 10 && IBV_WC_GENERAL_ERR == 21,
	       "IbvWC.IbvWcStatus ordinals");
_Static_assert(IBV_WC_RDMA_READ == 2 && IBV_WC_RECV == 128, "IbvWC.IbvWcOpcode values");

/* Work requests of one post that are converted on the stack; longer lists are allocated. */
#define POST_STACK_BATCH 32
/* More work requests than any queue holds: the list is corrupt (or loops). */
#define POST_MAX_BATCH 65536
/* Completions taken from rdma-core per ibv_poll_cq call. */
#define POLL_CHUNK 32

DISPATCHER(jlong, allocPd)(JNIEnv *env, jobject self UNUSED, jlong context)
{
	struct ibv_context *ctx = disni_ptr(context);
	struct ibv_pd *pd;

	if (ctx == NULL) {
		disni_throw_msg(env, "ibv_alloc_pd: no device context");
		return -1;
	}
	pd = ibv_alloc_pd(ctx);
	if (pd == NULL) {
		disni_throw_errno(env, errno, "ibv_alloc_pd");
		return -1;
	}
	return disni_id(pd);
}

DISPATCHER(jint, deallocPd)(JNIEnv *env UNUSED, jobject self UNUSED, jlong pd_id)
{
	struct ibv_pd *pd = disni_ptr(pd_id);

	return pd == NULL ? -EINVAL : -ibv_dealloc_pd(pd);
}

DISPATCHER(jlong, createCompChannel)(JNIEnv *env, jobject self UNUSED, jlong context)
{
	struct ibv_context *ctx = disni_ptr(context);
	struct ibv_comp_channel *ch;
	int rc;

	if (ctx == NULL) {
		disni_throw_msg(env, "ibv_create_comp_channel: no device context");
		return -1;
	}
	ch = ibv_create_comp_channel(ctx);
	if (ch == NULL) {
		disni_throw_errno(env, errno, "ibv_create_comp_channel");
		return -1;
	}
	/* Non-blocking, so _getCqEvent never blocks past its poll when another thread won a race. */
	rc = disni_set_nonblocking(ch->fd);
	if (rc < 0) {
		ibv_destroy_comp_channel(ch);
		disni_throw_errno(env, -rc, "fcntl(O_NONBLOCK) on the completion channel");
		return -1;
	}
	return disni_id(ch);
}

DISPATCHER(jint, destroyCompChannel)(JNIEnv *env UNUSED, jobject self UNUSED, jlong channel)
{
	struct ibv_comp_channel *ch = disni_ptr(channel);

	return ch == NULL ? -EINVAL : -ibv_destroy_comp_channel(ch);
}

DISPATCHER(jlong, createCQ)(JNIEnv *env, jobject self UNUSED, jlong context, jlong channel,
			    jint ncqe, jint comp_vector)
{
	struct ibv_context *ctx = disni_ptr(context);
	struct ibv_cq *cq;

	if (ctx == NULL || ncqe <= 0 || comp_vector < 0) {
		disni_throw_msg(env, "ibv_create_cq: bad arguments (context %s, ncqe=%d, comp_vector=%d)",
				ctx == NULL ? "missing" : "given", ncqe, comp_vector);
		return -1;
	}
	cq = ibv_create_cq(ctx, ncqe, NULL, disni_ptr(channel), comp_vector);
	if (cq == NULL) {
		disni_throw_errno(env, errno, "ibv_create_cq(ncqe=%d, comp_vector=%d)", ncqe, comp_vector);
		return -1;
	}
	return disni_id(cq);
}

DISPATCHER(jint, destroyCQ)(JNIEnv *env UNUSED, jobject self UNUSED, jlong cq_id)
{
	struct ibv_cq *cq = disni_ptr(cq_id);

	return cq == NULL ? -EINVAL : -ibv_destroy_cq(cq);
}

/*
 * DiSNI 2.1's modifyQP passes no attributes (always 0): there is nothing to apply. RDMA-CM moves
 * the queue pairs of its ids through their states itself (and rdma_disconnect moves them to ERR).
 */
DISPATCHER(jint, modifyQP)(JNIEnv *env, jobject self UNUSED, jlong qp_id, jlong attr)
{
	disni_throw_msg(env, "modifyQP is not supported: DiSNI 2.1 passes no attributes (qp %s, attr %s);"
			     " RDMA-CM drives queue pair states",
			qp_id == 0 ? "missing" : "given", attr == 0 ? "missing" : "given");
	return -1;
}

/* Stores lkey, rkey and handle at the three addresses DiSNI passes (its 12-byte MemBuf). */
DISPATCHER(jlong, regMr)(JNIEnv *env, jobject self UNUSED, jlong pd_id, jlong addr, jint length,
			 jint access, jlong lkey_out, jlong rkey_out, jlong handle_out)
{
	struct ibv_pd *pd = disni_ptr(pd_id);
	struct ibv_mr *mr;

	if (pd == NULL || addr == 0 || length <= 0 || lkey_out == 0 || rkey_out == 0 || handle_out == 0) {
		disni_throw_msg(env, "ibv_reg_mr: bad arguments (pd %s, address %s, length=%d)",
				pd == NULL ? "missing" : "given", addr == 0 ? "missing" : "given", length);
		return -1;
	}
	mr = ibv_reg_mr(pd, disni_ptr(addr), (size_t)length, access);
	if (mr == NULL) {
		int err = errno;

		disni_throw_errno(env, err, "ibv_reg_mr(length=%d, access=0x%x)%s", length, access,
				  err == ENOMEM || err == EPERM ? " (is RLIMIT_MEMLOCK high enough?)" : "");
		return -1;
	}
	disni_st32(disni_ptr(lkey_out), 0, mr->lkey);
	disni_st32(disni_ptr(rkey_out), 0, mr->rkey);
	disni_st32(disni_ptr(handle_out), 0, mr->handle);
	return disni_id(mr);
}

DISPATCHER(void, deregMr)(JNIEnv *env, jobject self UNUSED, jlong mr_id)
{
	struct ibv_mr *mr = disni_ptr(mr_id);
	int rc;

	if (mr == NULL) {
		disni_throw_msg(env, "ibv_dereg_mr: no memory region");
		return;
	}
	rc = ibv_dereg_mr(mr);
	if (rc)
		disni_throw_errno(env, rc, "ibv_dereg_mr");
}

/* As DiSNI documents it: odp_caps.per_transport_caps.rc_odp_caps when ODP is supported, else -1. */
DISPATCHER(jint, queryOdpSupport)(JNIEnv *env UNUSED, jobject self UNUSED, jlong context)
{
	struct ibv_context *ctx = disni_ptr(context);
	struct ibv_device_attr_ex attr;

	if (ctx == NULL)
		return -1;
	memset(&attr, 0, sizeof attr);
	if (ibv_query_device_ex(ctx, NULL, &attr) || !(attr.odp_caps.general_caps & IBV_ODP_SUPPORT))
		return -1;
	return (jint)attr.odp_caps.per_transport_caps.rc_odp_caps;
}

/*
 * DiSNI's "experimental prefetch" (a Mellanox-only verb in its day) as rdma-core's ibv_advise_mr
 * prefetch. Returns 0 or an errno value, as DiSNI documents (EOPNOTSUPP where unsupported).
 */
DISPATCHER(jint, expPrefetchMr)(JNIEnv *env, jobject self UNUSED, jlong mr_id, jlong addr,
				jint length)
{
	struct ibv_mr *mr = disni_ptr(mr_id);
	struct ibv_sge sge;

	if (mr == NULL || length <= 0) {
		disni_throw_msg(env, "expPrefetchMr: bad arguments (memory region %s, length=%d)",
				mr == NULL ? "missing" : "given", length);
		return -1;
	}
	sge.addr = (uint64_t)addr;
	sge.length = (uint32_t)length;
	sge.lkey = mr->lkey;
	return ibv_advise_mr(mr->pd, IBV_ADVISE_MR_ADVICE_PREFETCH, IBV_ADVISE_MR_FLAG_FLUSH, &sge, 1);
}

/* Counts the requests of a list linked through the "next" field at next_off; -1 if too long. */
static long count_list(const unsigned char *first, size_t next_off)
{
	long n = 0;

	for (const unsigned char *w = first; w != NULL; w = disni_ptr((jlong)disni_ld64(w, next_off)))
		if (++n > POST_MAX_BATCH)
			return -1;
	return n;
}

/* Checks one request's scatter/gather list: 0, or an errno-style reason in *why. */
static int check_sges(int num_sge, uint64_t sg_list, const char **why)
{
	if (num_sge < 0) {
		*why = "negative num_sge";
		return EINVAL;
	}
	if (num_sge > 0 && (sg_list == 0 || (sg_list & (_Alignof(struct ibv_sge) - 1)) != 0)) {
		*why = "scatter/gather list missing or misaligned";
		return EINVAL;
	}
	return 0;
}

static int convert_send_wr(const unsigned char *w, struct ibv_send_wr *out, const char **why)
{
	int opcode = (int)disni_ld32(w, SEND_WR_OPCODE);
	int num_sge = (int)disni_ld32(w, SEND_WR_NUM_SGE);
	uint64_t sg_list = disni_ld64(w, SEND_WR_SG_LIST);
	int err = check_sges(num_sge, sg_list, why);

	if (err)
		return err;
	if (opcode == IBV_WR_ATOMIC_CMP_AND_SWP || opcode == IBV_WR_ATOMIC_FETCH_AND_ADD) {
		*why = "atomic operations are not supported (DiSNI 2.1 does not pass their operands)";
		return EINVAL;
	}
	memset(out, 0, sizeof *out);
	out->wr_id = disni_ld64(w, SEND_WR_WR_ID);
	out->sg_list = disni_ptr((jlong)sg_list);
	out->num_sge = num_sge;
	out->opcode = (enum ibv_wr_opcode)opcode;
	out->send_flags = disni_ld32(w, SEND_WR_SEND_FLAGS);
	memcpy(&out->imm_data, w + SEND_WR_IMM_DATA, sizeof out->imm_data);
	out->wr.rdma.remote_addr = disni_ld64(w, SEND_WR_REMOTE_ADDR);
	out->wr.rdma.rkey = disni_ld32(w, SEND_WR_RKEY);
	return 0;
}

DISPATCHER(void, postSend)(JNIEnv *env, jobject self UNUSED, jlong qp_id, jlong list)
{
	struct ibv_qp *qp = disni_ptr(qp_id);
	struct ibv_send_wr stack[POST_STACK_BATCH];
	struct ibv_send_wr *wrs = stack, *bad = NULL;
	const unsigned char *w = disni_ptr(list);
	const char *why = NULL;
	long n, i;
	int rc;

	if (qp == NULL || w == NULL) {
		disni_throw_msg(env, "ibv_post_send: missing queue pair or work request list");
		return;
	}
	n = count_list(w, SEND_WR_NEXT);
	if (n < 0) {
		disni_throw_msg(env, "ibv_post_send: more than %d work requests in one list (or a loop)",
				POST_MAX_BATCH);
		return;
	}
	if (n > POST_STACK_BATCH && (wrs = calloc((size_t)n, sizeof *wrs)) == NULL) {
		disni_throw_errno(env, ENOMEM, "ibv_post_send: %ld work requests", n);
		return;
	}
	for (i = 0; i < n; i++, w = disni_ptr((jlong)disni_ld64(w, SEND_WR_NEXT))) {
		rc = convert_send_wr(w, &wrs[i], &why);
		if (rc) {
			disni_throw_errno(env, rc, "ibv_post_send: work request %ld of %ld: %s", i, n, why);
			goto out;
		}
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	rc = ibv_post_send(qp, wrs, &bad);
	if (rc)
		disni_throw_errno(env, rc, "ibv_post_send: work request %ld of %ld%s",
				  bad != NULL ? (long)(bad - wrs) : 0L, n,
				  rc == ENOMEM ? " (send queue full)" : "");
out:
	if (wrs != stack)
		free(wrs);
}

DISPATCHER(void, postRecv)(JNIEnv *env, jobject self UNUSED, jlong qp_id, jlong list)
{
	struct ibv_qp *qp = disni_ptr(qp_id);
	struct ibv_recv_wr stack[POST_STACK_BATCH];
	struct ibv_recv_wr *wrs = stack, *bad = NULL;
	const unsigned char *w = disni_ptr(list);
	const char *why = NULL;
	long n, i;
	int rc;

	if (qp == NULL || w == NULL) {
		disni_throw_msg(env, "ibv_post_recv: missing queue pair or work request list");
		return;
	}
	n = count_list(w, RECV_WR_NEXT);
	if (n < 0) {
		disni_throw_msg(env, "ibv_post_recv: more than %d work requests in one list (or a loop)",
				POST_MAX_BATCH);
		return;
	}
	if (n > POST_STACK_BATCH && (wrs = calloc((size_t)n, sizeof *wrs)) == NULL) {
		disni_throw_errno(env, ENOMEM, "ibv_post_recv: %ld work requests", n);
		return;
	}
	for (i = 0; i < n; i++, w = disni_ptr((jlong)disni_ld64(w, RECV_WR_NEXT))) {
		int num_sge = (int)disni_ld32(w, RECV_WR_NUM_SGE);
		uint64_t sg_list = disni_ld64(w, RECV_WR_SG_LIST);

		rc = check_sges(num_sge, sg_list, &why);
		if (rc) {
			disni_throw_errno(env, rc, "ibv_post_recv: work request %ld of %ld: %s", i, n, why);
			goto out;
		}
		memset(&wrs[i], 0, sizeof wrs[i]);
		wrs[i].wr_id = disni_ld64(w, RECV_WR_WR_ID);
		wrs[i].sg_list = disni_ptr((jlong)sg_list);
		wrs[i].num_sge = num_sge;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
	}
	rc = ibv_post_recv(qp, wrs, &bad);
	if (rc)
		disni_throw_errno(env, rc, "ibv_post_recv: work request %ld of %ld%s",
				  bad != NULL ? (long)(bad - wrs) : 0L, n,
				  rc == ENOMEM ? " (receive queue full)" : "");
out:
	if (wrs != stack)
		free(wrs);
}

static void write_wc(unsigned char *out, const struct ibv_wc *wc)
{
	memset(out, 0, WC_SIZE);
	disni_st64(out, WC_WR_ID, wc->wr_id);
	disni_st32(out, WC_STATUS, (uint32_t)wc->status);
	disni_st32(out, WC_OPCODE, (uint32_t)wc->opcode);
	disni_st32(out, WC_VENDOR_ERR, wc->vendor_err);
	disni_st32(out, WC_BYTE_LEN, wc->byte_len);
	memcpy(out + WC_IMM_DATA, &wc->imm_data, sizeof wc->imm_data);
	disni_st32(out, WC_QP_NUM, wc->qp_num);
	disni_st32(out, WC_SRC_QP, wc->src_qp);
	disni_st32(out, WC_WC_FLAGS, wc->wc_flags);
	disni_st16(out, WC_PKEY_INDEX, wc->pkey_index);
	disni_st16(out, WC_SLID, wc->slid);
	out[WC_SL] = wc->sl;
	out[WC_DLID_PATH_BITS] = wc->dlid_path_bits;
}

/*
 * Polls up to ne completions into DiSNI's buffer (ne * WC_SIZE bytes, sized by NatPollCqCall for
 * its IbvWC array). Completions already taken are returned even if a later poll fails.
 */
DISPATCHER(jint, pollCQ)(JNIEnv *env, jobject self UNUSED, jlong cq_id, jint ne, jlong out)
{
	struct ibv_cq *cq = disni_ptr(cq_id);
	unsigned char *dst = disni_ptr(out);
	struct ibv_wc wc[POLL_CHUNK];
	int total = 0;

	if (cq == NULL || dst == NULL || ne < 0) {
		disni_throw_msg(env, "ibv_poll_cq: bad arguments (cq %s, buffer %s, ne=%d)",
				cq == NULL ? "missing" : "given", dst == NULL ? "missing" : "given", ne);
		return -1;
	}
	while (total < ne) {
		int want = ne - total < POLL_CHUNK ? ne - total : POLL_CHUNK;
		int got = ibv_poll_cq(cq, want, wc);

		if (got < 0) {
			if (total > 0)
				break;
			disni_throw_msg(env, "ibv_poll_cq failed (returned %d)", got);
			return -1;
		}
		for (int i = 0; i < got; i++)
			write_wc(dst + (size_t)(total + i) * WC_SIZE, &wc[i]);
		total += got;
		if (got < want)
			break;
	}
	return total;
}

/* Returns 0, or ibv_req_notify_cq's errno value (DiSNI throws when it is not 0). */
DISPATCHER(jint, reqNotifyCQ)(JNIEnv *env, jobject self UNUSED, jlong cq_id, jint solicited_only)
{
	struct ibv_cq *cq = disni_ptr(cq_id);

	if (cq == NULL) {
		disni_throw_msg(env, "ibv_req_notify_cq: no completion queue");
		return -1;
	}
	return ibv_req_notify_cq(cq, solicited_only != 0);
}

/*
 * Waits up to timeout_ms (negative: no limit) for a completion event on the channel. 0 when one
 * came (it is acknowledged later through _ackCqEvent, as verbs require), -ETIMEDOUT when none.
 */
DISPATCHER(jint, getCqEvent)(JNIEnv *env, jobject self UNUSED, jlong channel, jint timeout_ms)
{
	struct ibv_comp_channel *ch = disni_ptr(channel);
	struct ibv_cq *cq;
	void *cq_context;
	int rc;

	if (ch == NULL) {
		disni_throw_msg(env, "ibv_get_cq_event: no completion channel");
		return -1;
	}
	rc = disni_wait_readable(ch->fd, timeout_ms);
	if (rc == 0 || rc == -EINTR)
		return -ETIMEDOUT;
	if (rc < 0) {
		disni_throw_errno(env, -rc, "poll on the completion channel");
		return -1;
	}
	if (ibv_get_cq_event(ch, &cq, &cq_context)) {
		if (errno == EAGAIN)
			return -ETIMEDOUT;
		disni_throw_errno(env, errno, "ibv_get_cq_event");
		return -1;
	}
	return 0;
}

DISPATCHER(jint, ackCqEvent)(JNIEnv *env UNUSED, jobject self UNUSED, jlong cq_id, jint nevents)
{
	struct ibv_cq *cq = disni_ptr(cq_id);

	if (cq == NULL || nevents < 0)
		return -EINVAL;
	ibv_ack_cq_events(cq, (unsigned int)nevents);
	return 0;
}

DISPATCHER(jint, getQpNum)(JNIEnv *env, jobject self UNUSED, jlong qp_id)
{
	struct ibv_qp *qp = disni_ptr(qp_id);

	if (qp == NULL) {
		disni_throw_msg(env, "getQpNum: no queue pair");
		return -1;
	}
	return (jint)qp->qp_num;
}

DISPATCHER(jint, getContextFd)(JNIEnv *env, jobject self UNUSED, jlong context)
{
	struct ibv_context *ctx = disni_ptr(context);

	if (ctx == NULL) {
		disni_throw_msg(env, "getContextFd: no device context");
		return -1;
	}
	return ctx->cmd_fd;
}

DISPATCHER(jint, getContextNumCompVectors)(JNIEnv *env, jobject self UNUSED, jlong context)
{
	struct ibv_context *ctx = disni_ptr(context);

	if (ctx == NULL) {
		disni_throw_msg(env, "getContextNumCompVectors: no device context");
		return -1;
	}
	return ctx->num_comp_vectors;
}

DISPATCHER(jint, getPdHandle)(JNIEnv *env, jobject self UNUSED, jlong pd_id)
{
	struct ibv_pd *pd = disni_ptr(pd_id);

	if (pd == NULL) {
		disni_throw_msg(env, "getPdHandle: no protection domain");
		return -1;
	}
	return (jint)pd->handle;
}
