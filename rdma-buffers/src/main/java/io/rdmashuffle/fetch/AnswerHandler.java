/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.fetch;

import io.rdmashuffle.fetch.BlockFetchException.Kind;
import io.rdmashuffle.fetch.Locates.Call;
import io.rdmashuffle.mapoutput.LocateAnswer;
import io.rdmashuffle.mapoutput.LocateAnswer.Located;
import io.rdmashuffle.transport.CallRefusedException;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletionException;
import java.util.function.Consumer;

/**
 * What the outcome of one locate call of a {@link Locates} leads to: checks the answer against the
 * call, plans the READs (or local reads) of every map output it located, or issues the relocated
 * READ anew; asks again, through {@link LocateCalls}, for what the owner could not answer (in
 * smaller calls when it answered only a prefix or refused an answer too large, later when it was
 * busy or failed), and fails where a map output is lost or described wrongly. Driver only.
 */
final class AnswerHandler {
  private final FetchContext ctx;
  private final LocateCalls calls;

  /** Told of an owner that answered BUSY: every registration it may hold is leased. */
  private final Consumer<Owner> crowded;

  AnswerHandler(FetchContext ctx, LocateCalls calls, Consumer<Owner> crowded) {
    this.ctx = ctx;
    this.calls = calls;
    this.crowded = crowded;
  }

  /**
   * The consumer's thread: a call was answered (or failed). Plans the READs (or local reads) of
   * every map output it located, asks again for those the owner could not answer (now, or in this
   * call's bound), and fails where a map output is lost.
   */
  void answered(Call c) throws BlockFetchException {
    if (c.failure != null) {
      Throwable t =
          c.failure instanceof CompletionException && c.failure.getCause() != null
              ? c.failure.getCause()
              : c.failure;
      if (t instanceof CallRefusedException r && r.isBusy()) {
        // every call worker of the owner busy and its queue full: nobody's fault, a BUSY answer
        crowded.accept(c.owner);
        calls.busy(c, c.parts, "its call workers and their queue are full: " + r.reason());
        return;
      }
      if (t instanceof CallRefusedException r
          && r.status() == CallRefusedException.TOO_LARGE
          && askForLess(c, c.parts.size() > 1)) {
        return; // an owner that refuses what does not fit instead of answering a prefix
      }
      calls.retry(
          c,
          c.parts,
          c.local,
          Kind.ofTransportFailure(t),
          "could not ask " + c.owner.address() + " where to READ: " + t,
          t);
      return;
    }
    LocateAnswer a = c.answer;
    checkAnswer(c, a);
    List<LocatePart> deferred = new ArrayList<>();
    List<LocatePart> busy = new ArrayList<>();
    String busyWhy = "";
    for (int i = 0; i < c.parts.size(); i++) {
      LocatePart p = c.parts.get(i);
      BlockSource s = p.source();
      Located e = a.maps().get(i);
      switch (e.status()) {
        case OK -> located(c, p, e, a);
        case DEFERRED -> deferred.add(p);
        case BUSY -> {
          if (busy.isEmpty()) {
            crowded.accept(c.owner);
          }
          busy.add(p);
          busyWhy = e.message();
        }
        case UNAVAILABLE ->
            calls.retry(
                c,
                List.of(p),
                c.local,
                Kind.UNAVAILABLE,
                c.owner.address() + " can't serve map output " + s.map() + " now: " + e.message(),
                null);
        default ->
            throw ctx.counters.failure(
                Kind.MISSING,
                s,
                p.first(),
                c.owner.address()
                    + " answered "
                    + e.status()
                    + " for map output "
                    + s.map()
                    + ": "
                    + e.message(),
                null);
      }
    }
    if (!busy.isEmpty()) {
      calls.busy(c, busy, busyWhy);
    }
    if (deferred.size() == c.parts.size()) {
      if (!askForLess(c, false)) {
        LocatePart p = c.parts.get(0);
        throw ctx.counters.failure(
            Kind.UNAVAILABLE,
            p.source(),
            p.first(),
            c.owner.address()
                + " can't answer even one partition of map output "
                + p.source().map()
                + " within its call.maxAnswerBytes",
            null);
      }
    } else if (!deferred.isEmpty()) {
      // the owner answered what fit its bound: the rest at once, in the same batch
      calls.send(new Call(c.owner, deferred, c.local, c.reissue, c.attempt));
    }
  }

  /**
   * Asks again for what {@code c} asked, in smaller calls: its parts in two halves when {@code
   * halveParts}, else its first part's partitions in two halves (and its other parts in a call of
   * their own), else without local paths. Returns false when there is nothing smaller to ask.
   */
  private boolean askForLess(Call c, boolean halveParts) {
    List<List<LocatePart>> smaller = new ArrayList<>();
    int n = c.parts.size();
    LocatePart first = c.parts.get(0);
    if (halveParts && n > 1) {
      smaller.add(c.parts.subList(0, n / 2));
      smaller.add(c.parts.subList(n / 2, n));
    } else if (first.blocks() > 1 && c.reissue == null) {
      for (LocatePart h : first.halves()) {
        smaller.add(List.of(h));
      }
      if (n > 1) {
        smaller.add(c.parts.subList(1, n));
      }
    } else if (n > 1) {
      smaller.add(List.of(first));
      smaller.add(c.parts.subList(1, n));
    } else if (c.local) {
      // a path is the longest part
      calls.send(new Call(c.owner, c.parts, false, c.reissue, c.attempt));
      return true;
    } else {
      return false;
    }
    for (List<LocatePart> parts : smaller) {
      calls.send(new Call(c.owner, parts, c.local, c.reissue, c.attempt));
    }
    return true;
  }

  private void checkAnswer(Call c, LocateAnswer a) throws BlockFetchException {
    String problem = null;
    if (a.maps().size() != c.parts.size()) {
      problem = "answered " + a.maps().size() + " map outputs, asked for " + c.parts.size();
    } else {
      for (int i = 0; i < c.parts.size() && problem == null; i++) {
        String asked = c.parts.get(i).source().map();
        if (!a.maps().get(i).map().equals(asked)) {
          problem = "answered map output " + a.maps().get(i).map() + " for " + asked;
        }
      }
    }
    if (problem != null) {
      LocatePart p = c.parts.get(0);
      throw ctx.counters.failure(
          Kind.INVALID, p.source(), p.first(), c.owner.address() + " " + problem, null);
    }
  }

  private void located(Call c, LocatePart part, Located e, LocateAnswer a)
      throws BlockFetchException {
    BlockSource s = part.source();
    for (int i = part.from(); i < part.to(); i++) {
      int p = s.partitions()[i];
      if (p < e.partitions().first() || p >= e.partitions().end()) {
        throw ctx.counters.failure(
            Kind.INVALID,
            s,
            p,
            c.owner.address()
                + " answered partitions "
                + e.partitions()
                + " without partition "
                + p,
            null);
      }
    }
    if (e.data() == null) {
      Path file = Path.of(e.localPath());
      if (canRead(file, e)) {
        ReadPlanner.planLocal(ctx, s, part.from(), part.to(), e.partitions(), file);
      } else {
        // not readable from here (another user, another mount namespace): READ it instead
        calls.send(new Call(c.owner, List.of(part), false, null, c.attempt));
      }
      return;
    }
    if (c.reissue != null) {
      if (!c.reissue.sameLayout(e.partitions())) {
        // re-published under the same id since the READ was planned: its bytes are another
        // output's; never mixed with what was READ of the first
        throw ctx.counters.failure(
            Kind.INVALID,
            s,
            c.reissue.partition(),
            c.owner.address()
                + " now describes map output "
                + s.map()
                + " differently than when its READs were planned (re-published under the same"
                + " id?)",
            null);
      }
      c.reissue.reissue(a.responder(), e.data());
    } else {
      ReadPlanner.planReads(
          ctx, s, part.from(), part.to(), e.partitions(), a.responder(), e.data());
    }
  }

  private static boolean canRead(Path file, Located e) {
    try (FileChannel ch = FileChannel.open(file, StandardOpenOption.READ)) {
      return ch.size() >= e.partitions().extent();
    } catch (IOException | RuntimeException ex) {
      return false;
    }
  }
}
