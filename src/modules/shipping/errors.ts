// The message keys of the shipping module (docs/shipping.md, "States" and "Errors").

export const SHIPPING_KEYS = {
  orderCompleted: 'svc.wms.shp.order.completed',
  orderInvalidStateTransition: 'svc.wms.shp.order.invalidStateTransition',
  positionInvalidStateTransition: 'svc.wms.shp.position.invalidStateTransition',
} as const;
