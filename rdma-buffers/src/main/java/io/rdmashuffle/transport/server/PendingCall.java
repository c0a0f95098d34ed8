package io.rdmashuffle.transport.server;

import java.nio.ByteBuffer;
import java.util.concurrent.CompletableFuture;

/** A call handed to a {@link CallConnection}: what to send, whom to tell, and by when. */
record PendingCall(
    int service, byte[] request, CompletableFuture<ByteBuffer> future, long deadlineNanos) {}
