/*
 * Copyright 2026 The rdma-shuffle Authors
 * SPDX-License-Identifier: Apache-2.0
 */
package io.rdmashuffle.transport.server;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** A call handed to a {@link CallConnection}: what to send, whom to tell, and by when. */
record PendingCall(
    int service, byte[] request, CompletableFuture<ByteBuffer> future, long deadlineNanos) {}
