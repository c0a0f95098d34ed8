/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.tcp;

import static io.rdmashuffle.transport.tcp.TcpFrameLayout.STATUS_OK;

/**
 * The READ responses one connection owes its reader, in request order: each by reference (id,
 * status, and for an answer with data the retained region, offset and length), never by copy, so
 * what a full socket could not take is composed again from here. A ring of parallel arrays that
 * grows (doubling, once) up to {@value #MAX} entries; nothing is allocated per READ. Not
 * thread-safe: its connection's I/O thread only.
 */
final class ResponseQueue {
  /** Responses owed at most; beyond it the session stops reading requests. */
  static final int MAX = 1024;

  private int[] ids = new int[16];
  private int[] statuses = new int[16];
  private TcpRegion[] regions = new TcpRegion[16];
  private int[] offsets = new int[16];
  private int[] lengths = new int[16];
  private int head;
  private int size;

  int size() {
    return size;
  }

  boolean isEmpty() {
    return size == 0;
  }

  /** Responses that may still be added. */
  int room() {
    return MAX - size;
  }

  /**
   * Adds a response; {@code region} (retained by the caller, released by this queue) and the range
   * only for status OK.
   */
  void add(int id, int status, TcpRegion region, int offset, int length) {
    if (size == ids.length) {
      grow();
    }
    int i = (head + size) % ids.length;
    ids[i] = id;
    statuses[i] = status;
    regions[i] = region;
    offsets[i] = offset;
    lengths[i] = status == STATUS_OK ? length : 0;
    size++;
  }

  int id(int k) {
    return ids[at(k)];
  }

  int status(int k) {
    return statuses[at(k)];
  }

  TcpRegion region(int k) {
    return regions[at(k)];
  }

  int offset(int k) {
    return offsets[at(k)];
  }

  /** Bytes of data the k-th response carries (0 for a refusal). */
  int length(int k) {
    return lengths[at(k)];
  }

  /** Turns the k-th response into a refusal with {@code status}, releasing its region. */
  void refuse(int k, int status) {
    int i = at(k);
    if (regions[i] != null) {
      regions[i].release();
      regions[i] = null;
    }
    statuses[i] = status;
    lengths[i] = 0;
  }

  /** Removes the oldest response (sent), releasing its region. */
  void pop() {
    int i = head;
    if (regions[i] != null) {
      regions[i].release();
      regions[i] = null;
    }
    head = (head + 1) % ids.length;
    size--;
  }

  /** Removes every response, releasing their regions. */
  void clear() {
    while (size > 0) {
      pop();
    }
  }

  private int at(int k) {
    return (head + k) % ids.length;
  }

  private void grow() {
    int old = ids.length;
    int n = Math.min(MAX, old * 2);
    TcpRegion[] r = new TcpRegion[n];
    for (int k = 0; k < size; k++) {
      r[k] = regions[(head + k) % old];
    }
    regions = r;
    ids = unwrap(ids, n);
    statuses = unwrap(statuses, n);
    offsets = unwrap(offsets, n);
    lengths = unwrap(lengths, n);
    head = 0;
  }

  private int[] unwrap(int[] a, int n) {
    int[] b = new int[n];
    for (int k = 0; k < size; k++) {
      b[k] = a[(head + k) % a.length];
    }
    return b;
  }
}
