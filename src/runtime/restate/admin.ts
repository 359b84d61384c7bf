/**
 * Registers a worker's endpoint with Restate's admin API, so Restate knows the `Agent` object
 * and sends its invocations there. Registering the same address again is harmless (`force`
 * replaces the deployment at that address with what the endpoint serves now).
 */
export async function registerDeployment(adminUrl: string, endpointUrl: string): Promise<void> {
  const response = await fetch(new URL("/deployments", adminUrl), {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ uri: endpointUrl, force: true }),
  });
  if (!response.ok) {
    const text = await response.text();
    throw new Error(`Restate admin ${adminUrl} refused ${endpointUrl}: ${response.status} ${text}`);
  }
}

/** Whether Restate's admin API answers (it is up). */
export async function adminHealthy(adminUrl: string): Promise<boolean> {
  try {
    return (await fetch(new URL("/health", adminUrl))).ok;
  } catch {
    return false;
  }
}
