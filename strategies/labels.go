package strategies

// labels are the strategies in plain words, for the page, which shows each
// beside its name. Every strategy has one (TestEveryStrategyHasALabel).
var labels = map[string]string{
	NameNone:         "no retries",
	NameFixed:        "fixed interval",
	NameExponential:  "exponential backoff",
	NameTruncated:    "truncated exponential (Cloud Storage)",
	NameGRPC:         "gRPC connection backoff",
	NameFullJitter:   "full jitter (AWS; the AWS SDKs' standard mode)",
	NameEqualJitter:  "equal jitter (AWS)",
	NameDecorrelated: "decorrelated jitter (AWS)",
	NameThinkScaled:  "the 2014 program: waits scaled by think time",

	NameEnvoy:                     "Envoy / Istio route retries",
	NameGRPCRetry:                 "gRPC retry policy (gRFC A6)",
	NameAWSLegacy:                 "AWS SDK standard mode, before 2026",
	NameAWSThrottled:              "AWS SDK, error answers as throttling errors (adaptive mode)",
	NameResilience4j:              "resilience4j Retry",
	NamePolly:                     "Polly v8 retry",
	NameCenkalti:                  "cenkalti/backoff ExponentialBackOff",
	NameClientGo:                  "client-go wait.Backoff",
	NameTenacityExponential:       "tenacity wait_exponential",
	NameTenacityRandomExponential: "tenacity wait_random_exponential",
	NameUrllib3:                   "urllib3 Retry",
}

// Label returns strategy name's label, or the name when it has none.
func Label(name string) string {
	if l, ok := labels[name]; ok {
		return l
	}
	return name
}
