/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import static io.rdmashuffle.transport.server.CallFrameLayout.*;

import io.rdmashuffle.transport.CallRefusedException;
import io.rdmashuffle.transport.PeerAddress;
import io.rdmashuffle.transport.TransportException;
import io.rdmashuffle.transport.handshake.FrameMac;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.PriorityQueue;
import java.util.function.BiConsumer;

/**
 * The calls a {@link CallConnection} sent and awaits answers to: numbers them, matches each answer
 * (its tag checked) to its call and completes the call with it, finds a call past its deadline, and
 * hands them all over when the connection closes. The loop asks for the earliest deadline on every
 * turn: the calls are also kept in deadline order (a heap whose answered calls are dropped when
 * they reach its top), so that costs no scan of every call in flight. Loop thread only.
 */
final class InFlightCalls {
  private final Map<Integer, PendingCall> calls = new HashMap<>();

  /** The ids in flight by deadline; may still hold ids answered since (skipped at the top). */
  private final PriorityQueue<Due> byDeadline =
      new PriorityQueue<>((a, b) -> Long.compare(a.deadlineNanos - b.deadlineNanos, 0));

  private int nextId;

  private record Due(long deadlineNanos, int id) {}

  /** Takes {@code c} in flight; the id its frame carries. */
  int add(PendingCall c) {
    int id = nextId++;
    calls.put(id, c);
    byDeadline.add(new Due(c.deadlineNanos(), id));
    return id;
  }

  /** The earliest deadline's entry of a call still in flight, or null. */
  private Due earliest() {
    Due d = byDeadline.peek();
    while (d != null && !calls.containsKey(d.id)) {
      byDeadline.poll();
      d = byDeadline.peek();
    }
    return d;
  }

  boolean isEmpty() {
    return calls.isEmpty();
  }

  /** The earliest deadline of the calls in flight; call only when some are. */
  long earliestDeadline() {
    Due d = earliest();
    if (d == null) {
      throw new IllegalStateException("no call in flight");
    }
    return d.deadlineNanos;
  }

  /** A call whose deadline passed at {@code now}, no longer in flight; or null. */
  PendingCall removeLate(long now) {
    Due d = earliest();
    if (d == null || now - d.deadlineNanos <= 0) {
      return null;
    }
    byDeadline.poll();
    return calls.remove(d.id);
  }

  /**
   * Completes the call {@code a} answers: with its payload, or for a refusal through {@code fail}
   * with a {@link CallRefusedException}. Returns null, or why the connection can't be trusted any
   * more and must close (the tag failed, or no such call is in flight).
   */
  String answered(
      AnswerReader.Answer a,
      FrameMac answers,
      PeerAddress peer,
      BiConsumer<PendingCall, TransportException> fail) {
    byte[] f = a.frame();
    Header h = a.header();
    if (!verify(f, h.length(), answers)) {
      return "an answer failed its authentication tag (forged, replayed or altered on the way)";
    }
    PendingCall c = calls.remove(h.id());
    if (calls.isEmpty()) {
      byDeadline.clear();
    }
    if (c == null) {
      return "peer answered call " + h.id() + ", which is not in flight";
    }
    if (h.code() == STATUS_OK) {
      c.future().complete(ByteBuffer.wrap(f, HEADER_BYTES, h.length()).slice());
    } else {
      String why = new String(f, HEADER_BYTES, h.length(), StandardCharsets.UTF_8);
      fail.accept(c, new CallRefusedException(h.code(), why, peer));
    }
    return null;
  }

  /** Every call in flight, none in flight any more. */
  List<PendingCall> removeAll() {
    List<PendingCall> all = new ArrayList<>(calls.values());
    calls.clear();
    byDeadline.clear();
    return all;
  }
}
