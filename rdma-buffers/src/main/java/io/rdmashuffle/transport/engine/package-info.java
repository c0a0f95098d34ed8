/**
 * Building blocks of a transport's I/O engine that do not depend on the transport: the table of
 * posted work requests of one connection ({@link io.rdmashuffle.transport.engine.WorkRequestRing}),
 * a table that finds a connection from the key carried in a work request id ({@link
 * io.rdmashuffle.transport.engine.ConnectionTable}), and the idle strategy of an engine thread
 * ({@link io.rdmashuffle.transport.engine.SpinThenParkIdleStrategy}). Used by the verbs engine;
 * written so the tcp transport can use them too.
 */
package io.rdmashuffle.transport.engine;
