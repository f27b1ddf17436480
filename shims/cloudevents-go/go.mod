// mqconform's shim for the CloudEvents Go SDK's AMQP 1.0 binding: role `cloudevents-codec` of
// docs/process-protocol.md. The SDK version is pinned here (require), the whole module graph in
// go.sum; the shim reads the versions back from its build information.
// Build: python -m fixtures.process.shims cloudevents-go (go build -mod=readonly).
module mqconform/shims/cloudevents-go

go 1.22

require (
	github.com/Azure/go-amqp v0.17.0
	github.com/cloudevents/sdk-go/protocol/amqp/v2 v2.15.2
	github.com/cloudevents/sdk-go/v2 v2.15.2
)

require (
	github.com/json-iterator/go v1.1.10 // indirect
	github.com/modern-go/concurrent v0.0.0-20180228061459-e0a39a4cb421 // indirect
	github.com/modern-go/reflect2 v0.0.0-20180701023420-4b7aa43c6742 // indirect
)
