// Package bench measures the toolbus relay next to a bare khatru relay on
// the same eventstore backend, so that the cost of toolbus's policies and
// connection engine is a ratio measured in one run on one machine rather
// than an absolute number that means nothing elsewhere.
//
// Both relays run as child processes of the toolbus binary (`toolbus relay`
// and the internal `toolbus bench-baseline`), each on a fresh data directory
// and a free loopback port, and the same load generator, speaking raw
// websockets, drives both. Everything a client would spend CPU on outside
// the relay — signing events, encoding frames — is done before timing
// starts, since the generator shares the machine's cores with the relay.
//
// Workloads run one after the other. Within a workload the two relays are
// measured in alternating rounds (A B, B A, ...), each round on fresh
// relays, so that slow drift of the machine — fsync latency on a shared
// virtual disk, above all — is spread over both instead of deciding the
// ratio.
package bench
