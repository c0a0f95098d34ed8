package io.rdmashuffle.transport.engine;

/** Where a loop thread's errors go (Agrona's {@code ErrorHandler}): it never throws. */
@FunctionalInterface
public interface ErrorHandler {
  /** {@code t} escaped a round of {@code agent}. */
  void onError(Agent agent, Throwable t);
}
