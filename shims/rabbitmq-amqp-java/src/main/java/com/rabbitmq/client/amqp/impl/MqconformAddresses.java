package com.rabbitmq.client.amqp.impl;

import com.rabbitmq.client.amqp.Message;
import com.rabbitmq.qpid.protonj2.buffer.ProtonBuffer;
import java.util.Collections;

/**
 * mqconform's door to the address builder of com.rabbitmq.client:amqp-client. The library keeps its
 * builder package-private: DefaultAddressBuilder.address() makes the target address of a publisher
 * (AmqpPublisherBuilder's exchange / key / queue, read by AmqpPublisher), the source address of a
 * consumer (AmqpConsumer: Utils.addressBuilder().queue(queue).address()) and a message's `to` and
 * `reply-to` (Message.toAddress(), replyToAddress()). This class sits in the library's package (on
 * the class path, not as a module) only to call the library as the library calls itself: the builder
 * through its own factory Utils.addressBuilder(); a message as Publisher.message() makes it (new
 * AmqpMessage()), its `to` / `reply-to` through the public Message.toAddress() / replyToAddress(),
 * read back with Message.to() / replyTo(), and the message's bytes as the publisher hands them to its
 * sender (AmqpPublisher.doSend: enforceDurability(), then protonj2 encodes nativeMessage(), which is
 * AdvancedMessage.encode); a publisher's target as AmqpPublisher reads it from its builder
 * (AmqpPublisherBuilder.address(); null opens protonj2's anonymous sender). It encodes, checks and
 * changes nothing. What the library throws reaches the caller unchanged.
 */
public final class MqconformAddresses {
    private MqconformAddresses() {
    }

    /** A message property as the library set it, and the message as the library encodes it. */
    public static final class Property {
        public final String value;
        public final byte[] encoded;

        Property(String value, byte[] encoded) {
            this.value = value;
            this.encoded = encoded;
        }
    }

    /** The library's address for a queue (a publisher's target, a consumer's source). */
    public static String queue(String queue) {
        DefaultAddressBuilder<?> builder = Utils.addressBuilder();
        builder.queue(queue);
        return builder.address();
    }

    /** The library's address for an exchange; with a routing key when `key` is not null. */
    public static String exchange(String exchange, String key) {
        DefaultAddressBuilder<?> builder = Utils.addressBuilder();
        builder.exchange(exchange);
        if (key != null) {
            builder.key(key);
        }
        return builder.address();
    }

    /**
     * The target address of a publisher given no queue, exchange or key: what
     * connection.publisherBuilder().build() hands its sender (AmqpPublisher: this.address =
     * builder.address(); null opens an anonymous sender). The builder is the one
     * Connection.publisherBuilder() makes (new AmqpPublisherBuilder(connection)); the connection is
     * not read by address().
     */
    public static String publisherTargetWithoutDestination() {
        return new AmqpPublisherBuilder(null).address();
    }

    /**
     * A message's `to` (replyTo false) or `reply-to` (replyTo true) set through the library's own
     * Message.toAddress() / replyToAddress() for a queue (queue not null) or an exchange and
     * optional key, read back from the message, with the message as the library encodes it.
     */
    public static Property messageAddress(boolean replyTo, String queue, String exchange, String key)
        throws Exception {
        AmqpMessage message = new AmqpMessage();     // what Publisher.message() returns
        Message.MessageAddressBuilder builder = replyTo ? message.replyToAddress() : message.toAddress();
        if (queue != null) {
            builder.queue(queue);
        } else {
            builder.exchange(exchange);
            if (key != null) {
                builder.key(key);
            }
        }
        Message built = builder.message();
        String value = replyTo ? built.replyTo() : built.to();
        message.enforceDurability();                 // AmqpPublisher.doSend, before the send
        ProtonBuffer buffer = message.nativeMessage().toAdvancedMessage().encode(Collections.emptyMap());
        byte[] bytes = new byte[buffer.getReadableBytes()];
        buffer.readBytes(bytes, 0, bytes.length);
        return new Property(value, bytes);
    }
}
