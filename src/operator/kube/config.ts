/**
 * Where the Kubernetes API is: in a pod, its service account; otherwise `KUBECONFIG` or
 * ~/.kube/config (client-node's loadFromDefault), optionally a named context.
 */
import { KubeConfig } from "@kubernetes/client-node";

export function loadKubeConfig(options: { kubeconfig?: string; context?: string } = {}): KubeConfig {
  const kc = new KubeConfig();
  if (options.kubeconfig) kc.loadFromFile(options.kubeconfig);
  else kc.loadFromDefault();
  if (options.context) kc.setCurrentContext(options.context);
  if (!kc.getCurrentCluster()) throw new Error("no Kubernetes cluster configured: run in a pod, or set KUBECONFIG");
  return kc;
}
