/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
/*
 * libdisni: rdma-shuffle's own implementation of the JNI library that DiSNI 2.1's Java side
 * (com.ibm.disni.verbs.impl.NativeDispatcher, com.ibm.disni.util.NativeAffinity) loads with
 * System.loadLibrary("disni"). Written against rdma-core (libibverbs, librdmacm) from what the
 * Java side passes; DiSNI itself ships no native code.
 *
 * Conventions shared by every native method:
 *  - Objects cross the boundary as "object ids": the rdma-core pointer (rdma_cm_id *, ibv_qp *,
 *    ...) as a jlong. 0 is never a valid id; every method rejects it instead of crashing.
 *  - A method whose Java declaration says "throws IOException" throws one on failure, with the
 *    call, strerror and errno in the message. The others (declared without throws) return a
 *    negative errno instead, or what DiSNI's Javadoc documents for them.
 *  - Structures pass through direct buffers in DiSNI's own layouts (below). They are parsed
 *    field by field, never cast to rdma-core structs, so the contract with DiSNI's Java side
 *    holds whatever rdma-core's struct sizes are; the _get*Size natives report these layouts
 *    back, and DiSNI then keeps its defaults.
 */
#ifndef RDMASHUFFLE_DISNI_H
#define RDMASHUFFLE_DISNI_H

#include <jni.h>
#include <stdint.h>
#include <string.h>

#define UNUSED __attribute__((unused))

/* NativeDispatcher requires exactly this from _getVersion(). */
#define DISNI_JNI_VERSION 32

/* JNI entry points of NativeDispatcher: Java_<class>_<method>, '_' in a method name is "_1". */
#define DISPATCHER(ret, name) \
	JNIEXPORT ret JNICALL Java_com_ibm_disni_verbs_impl_NativeDispatcher__1##name

/*
 * IPv4 socket address, as SockAddrIn.writeBack/update use it (buffer of SOCKADDR_SIZE bytes;
 * DiSNI's SockAddrIn.CSIZE is 28). The first 16 bytes are exactly a struct sockaddr_in on a
 * little-endian host, since DiSNI writes family in native order and port and address already in
 * network order:
 *
 *   0       2       4               8                              16           28
 *   +-------+-------+---------------+------------------------------+------------+
 *   |family | port  |   address     |  zero (sin_zero, on output)  |   unused   |
 *   | u16   | be16  |   be32        |                              |            |
 *   +-------+-------+---------------+------------------------------+------------+
 */
enum {
	SOCKADDR_SIZE = 28,
	SOCKADDR_FAMILY = 0,
	SOCKADDR_PORT = 2,
	SOCKADDR_ADDR = 4,
};

/*
 * One send work request, as NatIbvSendWR.writeBack lays it out (native byte order); the
 * requests of one SVCPostSend follow each other, then all their scatter/gather entries:
 *
 *   0        8        16        24       28       32         36        40            48     52     56       72
 *   +--------+--------+---------+--------+--------+----------+---------+-------------+------+------+--------+
 *   | wr_id  | next   | sg_list | num_sge| opcode |send_flags| imm_data| remote_addr | rkey | rsvd | unused |
 *   | u64    | addr   | addr    | i32    | i32    | u32      | raw u32 | u64         | u32  | u32  |        |
 *   +--------+--------+---------+--------+--------+----------+---------+-------------+------+------+--------+
 *
 * next and sg_list are absolute addresses (0 ends the list). Bytes 56..71 are never written by
 * DiSNI (its MemBuf buffers are reused, so they hold stale bytes): atomics, whose operands would
 * live there, can't be expressed through DiSNI 2.1 and are rejected.
 */
enum {
	SEND_WR_SIZE = 72,
	SEND_WR_WR_ID = 0,
	SEND_WR_NEXT = 8,
	SEND_WR_SG_LIST = 16,
	SEND_WR_NUM_SGE = 24,
	SEND_WR_OPCODE = 28,
	SEND_WR_SEND_FLAGS = 32,
	SEND_WR_IMM_DATA = 36,
	SEND_WR_REMOTE_ADDR = 40,
	SEND_WR_RKEY = 48,
};

/*
 * One receive work request (NatIbvRecvWR.writeBack):
 *
 *   0        8        16        24        28        32
 *   +--------+--------+---------+---------+---------+
 *   | wr_id  | next   | sg_list | num_sge | unused  |
 *   +--------+--------+---------+---------+---------+
 */
enum {
	RECV_WR_SIZE = 32,
	RECV_WR_WR_ID = 0,
	RECV_WR_NEXT = 8,
	RECV_WR_SG_LIST = 16,
	RECV_WR_NUM_SGE = 24,
};

/*
 * One scatter/gather entry (NatIbvSge.writeBack); identical to struct ibv_sge, which is checked
 * at compile time, so a list of them is handed to rdma-core as it is:
 *
 *   0           8          12         16
 *   +-----------+----------+----------+
 *   | addr u64  | length   | lkey     |
 *   +-----------+----------+----------+
 */
enum {
	SGE_SIZE = 16,
	SGE_ADDR = 0,
	SGE_LENGTH = 8,
	SGE_LKEY = 12,
};

/*
 * One work completion, as NatPollCqCall.update reads it (it reads only the first 16 bytes when
 * status is not IBV_WC_SUCCESS):
 *
 *   0       8      12      16          20        24        28      32      36        40     42    44 45  46  48
 *   +-------+------+-------+-----------+---------+---------+-------+-------+---------+------+-----+--+---+---+
 *   | wr_id |status|opcode |vendor_err |byte_len |imm_data |qp_num |src_qp |wc_flags |pkey  |slid |sl|dlid| 0 |
 *   | u64   | u32  | u32   | u32       | u32     | raw u32 | u32   | u32   | u32     | u16  | u16 |u8|u8 |   |
 *   +-------+------+-------+-----------+---------+---------+-------+-------+---------+------+-----+--+---+---+
 */
enum {
	WC_SIZE = 48,
	WC_WR_ID = 0,
	WC_STATUS = 8,
	WC_OPCODE = 12,
	WC_VENDOR_ERR = 16,
	WC_BYTE_LEN = 20,
	WC_IMM_DATA = 24,
	WC_QP_NUM = 28,
	WC_SRC_QP = 32,
	WC_WC_FLAGS = 36,
	WC_PKEY_INDEX = 40,
	WC_SLID = 42,
	WC_SL = 44,
	WC_DLID_PATH_BITS = 45,
};

/* Loads and stores at byte offsets of DiSNI's buffers, safe for any alignment. */
static inline void *disni_ptr(jlong id) { return (void *)(uintptr_t)id; }
static inline jlong disni_id(const void *p) { return (jlong)(uintptr_t)p; }

static inline uint64_t disni_ld64(const unsigned char *base, size_t off)
{
	uint64_t v;
	memcpy(&v, base + off, sizeof v);
	return v;
}

static inline uint32_t disni_ld32(const unsigned char *base, size_t off)
{
	uint32_t v;
	memcpy(&v, base + off, sizeof v);
	return v;
}

static inline uint16_t disni_ld16(const unsigned char *base, size_t off)
{
	uint16_t v;
	memcpy(&v, base + off, sizeof v);
	return v;
}

static inline void disni_st64(unsigned char *base, size_t off, uint64_t v)
{
	memcpy(base + off, &v, sizeof v);
}

static inline void disni_st32(unsigned char *base, size_t off, uint32_t v)
{
	memcpy(base + off, &v, sizeof v);
}

static inline void disni_st16(unsigned char *base, size_t off, uint16_t v)
{
	memcpy(base + off, &v, sizeof v);
}

/*
 * Throws java.io.IOException "<what>: <strerror(err)> (errno <err>)". The caller returns right
 * after; nothing else may touch JNI while the exception is pending.
 */
void disni_throw_errno(JNIEnv *env, int err, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Throws java.io.IOException with exactly this message. */
void disni_throw_msg(JNIEnv *env, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Throws an exception of the named class (e.g. "java/lang/IllegalStateException"). */
void disni_throw_class(JNIEnv *env, const char *class_name, int err, const char *what);

/*
 * Waits until fd is readable: 1 readable, 0 timed out, -errno on error. timeout_ms < 0 waits
 * without limit (DiSNI passes the timeout of its getCmEvent / getCqEvent calls).
 */
int disni_wait_readable(int fd, int timeout_ms);

/* Puts fd in non-blocking mode; 0 or -errno. */
int disni_set_nonblocking(int fd);

struct ibv_context;

/*
 * rdmashuffle_odp_check.c: whether the device answers RDMA READs of on-demand memory with the
 * bytes asked for, through two of its queue pairs connected to each other. 0: right; 1: wrong
 * bytes; a negative errno when the check could not run. why (why_len bytes) says what was seen.
 */
int rs_odp_read_check(struct ibv_context *ctx, char *why, size_t why_len);

#endif
