// Stub of @deepseek-ai/dsh-attachment (image results only; the reproduction has none).
export function isImageAdmissionError() {
	return false;
}
