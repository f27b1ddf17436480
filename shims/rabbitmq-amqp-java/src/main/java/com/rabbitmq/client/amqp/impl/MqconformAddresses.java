package com.rabbitmq.client.amqp.impl;

/**
 * mqconform's door to the address builder of com.rabbitmq.client:amqp-client. The library keeps its
 * builder package-private: DefaultAddressBuilder.address() makes the target address of a publisher
 * (AmqpPublisherBuilder's exchange / key / queue, read by AmqpPublisher), the source address of a
 * consumer (AmqpConsumer: Utils.addressBuilder().queue(queue).address()) and a message's `to` and
 * `reply-to` (Message.toAddress(), replyToAddress()). This class sits in the library's package (on
 * the class path, not as a module) only to call that builder as the library calls it, through the
 * library's own factory Utils.addressBuilder(): it encodes, checks and changes nothing. What the
 * builder throws reaches the caller unchanged.
 */
public final class MqconformAddresses {
    private MqconformAddresses() {
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
}
