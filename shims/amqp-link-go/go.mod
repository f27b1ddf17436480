// mqconform's second AMQP 1.0 client (docs/link-protocol.md): go-amqp at the version
// shims/cloudevents-go pins, so the two Go shims share one go-amqp; go.sum holds the same lines as
// that module's for this graph. Build: python -m fixtures.process.shims amqp-link-go.
module mqconform/shims/amqp-link-go

go 1.22

require github.com/Azure/go-amqp v0.17.0
