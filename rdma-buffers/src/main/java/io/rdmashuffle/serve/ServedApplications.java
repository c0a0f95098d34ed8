/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.serve;

import io.rdmashuffle.mapoutput.OutputId;
import io.rdmashuffle.transport.handshake.ApplicationSecrets;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The applications an {@link OutputCatalog} serves: each from its admission to its withdrawal, its
 * secret known to the transport meanwhile; and the shuffles it forgot, whose late registrations are
 * dropped. Not thread-safe: every call is made under the catalog's lock.
 */
final class ServedApplications {
  private final ApplicationSecrets secrets;
  private final Set<String> admitted = new HashSet<>();

  /** Shuffles forgotten (application, shuffle): a late registration for one is dropped. */
  private final Set<List<String>> forgotten = new HashSet<>();

  /** Applications told (logged) that an output of theirs may not be opened by this process. */
  private final Set<String> denialsLogged = new HashSet<>();

  private boolean closed;

  /**
   * @param secrets the transport's application secrets, kept in step with admission
   */
  ServedApplications(ApplicationSecrets secrets) {
    this.secrets = secrets;
  }

  /**
   * Serves {@code application} to peers proving {@code secret}; nothing once closed. Idempotent.
   */
  void admit(String application, byte[] secret) {
    if (closed) {
      return;
    }
    if (!admitted.contains(application) || secrets.secretOf(application) == null) {
      secrets.put(application, secret);
      admitted.add(application);
    }
  }

  boolean isAdmitted(String application) {
    return admitted.contains(application);
  }

  /** Stops serving {@code application} and forgets its secret. Idempotent. */
  void withdraw(String application) {
    admitted.remove(application);
    secrets.remove(application);
    denialsLogged.remove(application);
  }

  /**
   * Whether this is the first output of {@code application} this process was refused to open (its
   * file's mode): logged once per application, not once per output.
   */
  boolean firstDenial(String application) {
    return admitted.contains(application) && denialsLogged.add(application);
  }

  /** Remembers that {@code shuffle} of {@code application} was removed. */
  void forgetShuffle(String application, String shuffle) {
    forgotten.add(List.of(application, shuffle));
  }

  /** {@code shuffle} of {@code application} runs again (an output of it was committed anew). */
  void shuffleRunsAgain(String application, String shuffle) {
    forgotten.remove(List.of(application, shuffle));
  }

  /** Whether a registration of {@code id} may be kept: still served, its shuffle not removed. */
  boolean serves(OutputId id) {
    return !closed
        && admitted.contains(id.application())
        && !forgotten.contains(List.of(id.application(), id.shuffle()));
  }

  /** Withdraws every application; none is admitted from now on. Idempotent. */
  void close() {
    closed = true;
    List<String> apps = new ArrayList<>(admitted);
    admitted.clear();
    denialsLogged.clear();
    apps.forEach(secrets::remove);
  }
}
