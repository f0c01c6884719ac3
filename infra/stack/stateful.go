package stack

// StatefulTypes are the CloudFormation types whose loss loses data or
// evidence: what must be retained, never replaced, and keep its physical id
// through an update.
func StatefulTypes() map[string]bool {
	return map[string]bool{"AWS::DynamoDB::Table": true, "AWS::SecretsManager::Secret": true, "AWS::SQS::Queue": true,
		"AWS::Logs::LogGroup": true, "AWS::S3::Bucket": true, "AWS::KMS::Key": true}
}
