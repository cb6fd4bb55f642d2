/**
 * Where a deployment goes in the cluster and how its images are built, from its listener (when it
 * has one) and the control plane's defaults. Pure.
 */
import { targetNamespace, type ComputeConfig, type ListenerConfig, type ListenerTarget } from "../../control-plane/rules/index.js";

/** `listener_config.k8s_namespace` ?? the listener's first `k8s_namespaces` entry ?? BERTH_K8S_DEFAULT_NAMESPACE. */
export function deploymentNamespace(listener: ListenerTarget | undefined, listenerConfig: ListenerConfig | null | undefined, defaultNamespace: string): string {
  return (listener ? targetNamespace(listener, listenerConfig) : listenerConfig?.k8s_namespace) ?? defaultNamespace;
}

export interface BuildDefaults {
  /** BERTH_IMAGE_REGISTRY: for deployments whose listener names none (hosted_git deployments have no listener). */
  imageRegistry?: string;
  /** BERTH_REGISTRY_PUSH_SECRET. */
  registryPushSecret?: string;
  /** BERTH_KANIKO_IMAGE. */
  kanikoImage: string;
}

export interface BuildPlacement {
  imageRegistry: string | undefined;
  registryPushSecret: string | undefined;
  kanikoImage: string;
}

/** The listener's compute_config wins over the control plane's defaults, field by field. */
export function buildPlacement(computeConfig: ComputeConfig | undefined, defaults: BuildDefaults): BuildPlacement {
  return {
    imageRegistry: computeConfig?.image_registry ?? defaults.imageRegistry,
    registryPushSecret: computeConfig?.registry_push_secret ?? defaults.registryPushSecret,
    kanikoImage: computeConfig?.kaniko_image ?? defaults.kanikoImage,
  };
}
